import type { BenchRow, BenchTable } from "../harness/index.js";
import { percentile } from "../harness/index.js";
import { GroupCounters } from "./group-counters.js";
import type { RedlockSubject } from "./redlock-subjects.js";

const WARM_UP = 200;
const ITERATIONS = 2_000;
const TTL_MS = 10_000;

/** One client, serial acquire+release of one free key on N masters: the cost of a Redlock when nobody competes. */
export async function redlockUncontendedScenario(url: string, subjects: readonly RedlockSubject[], baseline: string): Promise<BenchTable> {
  const rows: BenchRow[] = [];
  const counters = new GroupCounters(url);
  for (const subject of subjects) {
    const open = await subject.open(url);
    const key = `bench:redlock:uncontended:${subject.id}`;
    for (let i = 0; i < WARM_UP; i++) await (await open.acquire(key, TTL_MS))();
    const latencies: number[] = [];
    const acquireLatencies: number[] = [];
    const requestsBefore = await counters.calls(subject.clientCommands);
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      const t0 = performance.now();
      const release = await open.acquire(key, TTL_MS);
      acquireLatencies.push(performance.now() - t0);
      await release();
      latencies.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    const requests = (await counters.calls(subject.clientCommands)) - requestsBefore;
    await open.close();
    rows.push({
      scenario: "uncontended acquire+release",
      subject: subject.name,
      metrics: {
        "ops/s": ITERATIONS / seconds,
        "acquire p50 µs": percentile(acquireLatencies, 50) * 1000,
        "acquire p99 µs": percentile(acquireLatencies, 99) * 1000,
        "op p50 µs": percentile(latencies, 50) * 1000,
        "requests/op (all nodes)": requests / ITERATIONS,
      },
    });
  }
  await counters.close();
  return {
    title: `Redlock uncontended: one client, ${ITERATIONS} serial acquire+release of one key on ${url.split(",").length} masters`,
    rows,
    baseline,
    ratioOf: "ops/s",
    notes: subjects.map((s) => `- ${s.name}: ${s.settings}`),
  };
}
