import type { BenchRow, BenchTable } from "../harness/index.js";
import { percentile } from "../harness/index.js";
import type { LockSubject } from "./lock-subjects.js";
import { ServerCounters } from "./server-counters.js";

const WARM_UP = 300;
const ITERATIONS = 3_000;
const TTL_MS = 10_000;

/** One client, serial acquire+release of one free key: the cost of a lock when nobody competes. */
export async function uncontendedScenario(url: string, subjects: readonly LockSubject[], baseline: string): Promise<BenchTable> {
  const rows: BenchRow[] = [];
  const counters = new ServerCounters(url);
  for (const subject of subjects) {
    const open = await subject.open(url);
    const key = `bench:uncontended:${subject.name}`;
    for (let i = 0; i < WARM_UP; i++) await (await open.acquire(key, TTL_MS))();
    const latencies: number[] = [];
    const commandsBefore = await counters.calls(subject.clientCommands);
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      const t0 = performance.now();
      await (await open.acquire(key, TTL_MS))();
      latencies.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    const requests = (await counters.calls(subject.clientCommands)) - commandsBefore - 1;
    await open.close();
    rows.push({
      scenario: "uncontended acquire+release",
      subject: subject.name,
      metrics: {
        "ops/s": ITERATIONS / seconds,
        "p50 µs": percentile(latencies, 50) * 1000,
        "p99 µs": percentile(latencies, 99) * 1000,
        "requests/op": requests / ITERATIONS,
      },
    });
  }
  await counters.close();
  return {
    title: `Uncontended: one client, ${ITERATIONS} serial acquire+release of one key`,
    rows,
    baseline,
    ratioOf: "ops/s",
    notes: subjects.map((s) => `- ${s.name}: ${s.settings}`),
  };
}
