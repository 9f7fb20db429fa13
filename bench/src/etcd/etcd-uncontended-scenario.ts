import type { BenchRow, BenchTable } from "../harness/index.js";
import { percentile } from "../harness/index.js";
import type { EtcdLockSubject } from "./etcd-lock-subjects.js";
import { EtcdRequestCounter } from "./etcd-request-counter.js";

const WARM_UP = 200;
const ITERATIONS = 2_000;
const TTL_MS = 10_000;

/** One client, serial acquire+release of one free key: the cost of a lock when nobody competes. */
export async function etcdUncontendedScenario(endpoint: string, subjects: readonly EtcdLockSubject[], baseline: string): Promise<BenchTable> {
  const rows: BenchRow[] = [];
  const counter = new EtcdRequestCounter(endpoint);
  for (const subject of subjects) {
    const open = await subject.open([endpoint]);
    const key = `bench/uncontended/${subject.id}`;
    for (let i = 0; i < WARM_UP; i++) await (await open.acquire(key, TTL_MS))();
    const latencies: number[] = [];
    const requestsBefore = await counter.total();
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      const t0 = performance.now();
      await (await open.acquire(key, TTL_MS))();
      latencies.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    const requests = (await counter.total()) - requestsBefore;
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
  return {
    title: `Uncontended: one client, ${ITERATIONS} serial acquire+release of one key (etcd 3.4, one member)`,
    rows,
    baseline,
    ratioOf: "ops/s",
    notes: [
      ...subjects.map((s) => `- ${s.name}: ${s.settings}`),
      "- requests/op: gRPC messages etcd received per acquire+release (unary calls and stream messages)",
    ],
  };
}
