import type { BenchRow, BenchTable } from "../harness/index.js";
import { percentile } from "../harness/index.js";
import type { SqlLockSubject } from "./sql-lock-subjects.js";

const WARM_UP = 300;
const ROUNDS = 6;
const ITERATIONS_PER_ROUND = 500;
const TTL_MS = 10_000;

/**
 * One client per subject, serial acquire+release of one free key: the cost of a lock when nobody competes.
 * Subjects take turns in rounds, so a burst of load on a shared machine hits them all alike.
 */
export async function sqlUncontendedScenario(title: string, url: string, subjects: readonly SqlLockSubject[], baseline: string): Promise<BenchTable> {
  const opened = await Promise.all(subjects.map((subject) => subject.open(url)));
  const latencies: number[][] = subjects.map(() => []);
  const seconds = subjects.map(() => 0);
  const key = (index: number) => `bench:uncontended:${subjects[index]?.id}`;
  for (const [index, open] of opened.entries()) for (let i = 0; i < WARM_UP; i++) await (await open.acquire(key(index), TTL_MS))();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, open] of opened.entries()) {
      const started = performance.now();
      for (let i = 0; i < ITERATIONS_PER_ROUND; i++) {
        const t0 = performance.now();
        await (await open.acquire(key(index), TTL_MS))();
        latencies[index]?.push(performance.now() - t0);
      }
      seconds[index] = (seconds[index] ?? 0) + (performance.now() - started) / 1000;
    }
  }
  await Promise.all(opened.map((open) => open.close()));
  const rows: BenchRow[] = subjects.map((subject, index) => ({
    scenario: "uncontended acquire+release",
    subject: subject.name,
    metrics: {
      "ops/s": (ROUNDS * ITERATIONS_PER_ROUND) / (seconds[index] ?? 1),
      "p50 µs": percentile(latencies[index] ?? [], 50) * 1000,
      "p99 µs": percentile(latencies[index] ?? [], 99) * 1000,
    },
  }));
  return {
    title: `${title}: one client each, ${ROUNDS} rounds of ${ITERATIONS_PER_ROUND} serial acquire+release of one key, subjects taking turns`,
    rows,
    baseline,
    ratioOf: "ops/s",
    notes: subjects.map((s) => `- ${s.name}: ${s.settings}`),
  };
}
