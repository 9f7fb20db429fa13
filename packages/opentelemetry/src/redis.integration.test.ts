import { RedisLockProvider } from "@distlock/redis";
import { startRedis } from "@distlock/test-servers";
import { afterAll, afterEach, describe, it } from "vitest";
import { instrumentLocks } from "./instrument-locks.js";
import { contendedRun, expectContendedRunRecorded, TestTelemetry } from "./telemetry.test-support.js";

const server = await startRedis();
afterAll(() => server.close());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("instrumentLocks on redis", () => {
  it("records waits, holds, a timeout and the gauges of a contended run across three providers, without the key or the owner", async () => {
    const telemetry = new TestTelemetry();
    const instrumentation = instrumentLocks({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
    cleanups.push(
      () => telemetry.shutdown(),
      () => instrumentation.close(),
    );
    const [first, second, third] = Array.from({ length: 3 }, () => new RedisLockProvider({ url: server.url }));
    if (first === undefined || second === undefined || third === undefined) throw new Error("three providers");
    cleanups.push(() => Promise.all([first.close(), second.close(), third.close()]).then(() => undefined));
    const facts = await contendedRun(telemetry, { first, second, third }, "orders:42");
    expectContendedRunRecorded(telemetry, facts, "redis", "orders:42");
  });
});
