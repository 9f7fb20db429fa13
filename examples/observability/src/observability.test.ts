import { MemoryLockProvider } from "@distlock/core";
import { instrumentLocks } from "@distlock/opentelemetry";
import { afterEach, describe, expect, it } from "vitest";
import { contendedRun } from "./contended-run.js";
import { sampleValue, startMetricsServer } from "./metrics-server.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

describe("the observability example", () => {
  it("serves distlock metrics on /metrics that move during and after a contended run", async () => {
    const server = await startMetricsServer();
    cleanups.push(() => server.close());
    const instrumentation = instrumentLocks({ meterProvider: server.meterProvider });
    cleanups.push(() => instrumentation.close());
    const locks = new MemoryLockProvider();
    cleanups.push(() => locks.close());
    const memory = { distlock_backend: "memory" };

    expect(sampleValue(await scrape(server.url), "distlock_lock_acquisitions_total", memory)).toBe(0);
    let midRun = "";
    const result = await contendedRun(locks, {
      workers: 3,
      turnsPerWorker: 4,
      whileHeld: async () => {
        midRun = await scrape(server.url);
      },
    });
    expect(result).toEqual({ turns: 12, timeouts: 1 });

    // Mid-run: the first holder holds, the three workers wait, the impatient caller has given up.
    expect(sampleValue(midRun, "distlock_lock_held", memory)).toBe(1);
    expect(sampleValue(midRun, "distlock_lock_waiters", { ...memory, distlock_operation: "acquire" })).toBe(3);
    expect(sampleValue(midRun, "distlock_lock_timeouts_total", memory)).toBe(1);

    const after = await scrape(server.url);
    expect(sampleValue(after, "distlock_lock_acquisitions_total", { ...memory, distlock_outcome: "granted" })).toBe(13);
    expect(sampleValue(after, "distlock_lock_acquisitions_total", { ...memory, distlock_outcome: "timeout" })).toBe(1);
    expect(sampleValue(after, "distlock_lock_wait_duration_count", { ...memory, distlock_outcome: "granted" })).toBe(13);
    expect(sampleValue(after, "distlock_lock_wait_duration_sum", { ...memory, distlock_outcome: "timeout" })).toBeGreaterThanOrEqual(0.015);
    expect(sampleValue(after, "distlock_lock_hold_duration_count", { ...memory, distlock_outcome: "released" })).toBe(13);
    expect(sampleValue(after, "distlock_lock_held", memory)).toBe(0);
    expect(sampleValue(after, "distlock_lock_waiters", memory)).toBe(0);
    expect(after).not.toContain("inventory");
  });

  it("answers 404 beside /metrics", async () => {
    const server = await startMetricsServer();
    cleanups.push(() => server.close());
    expect((await fetch(server.url.replace(/\/metrics$/, "/other"))).status).toBe(404);
  });
});
