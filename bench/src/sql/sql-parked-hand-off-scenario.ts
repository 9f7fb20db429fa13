import type { BenchRow, BenchScale, BenchTable, LockSubject } from "../harness/index.js";
import { percentile, scaledCount } from "../harness/index.js";

const HAND_OFFS = 30;
const TTL_MS = 10_000;
const MIN_HOLD_MS = 50;
const MAX_HOLD_MS = 250;

/**
 * Two clients: one holds the key for a random 50–250 ms while the other waits, then releases. Measures
 * release-to-acquire for a waiter that is already parked, which the looping contended scenario hardly
 * sees (there the releasing worker usually takes the key straight back).
 */
export async function sqlParkedHandOffScenario(url: string, subjects: readonly LockSubject[], baseline: string, scale: BenchScale): Promise<BenchTable> {
  const rows: BenchRow[] = [];
  const count = scaledCount(HAND_OFFS, scale);
  for (const subject of subjects) {
    const [holder, waiter] = [await subject.open(url), await subject.open(url)];
    const key = `bench:parked:${subject.id}`;
    const handOffs: number[] = [];
    for (let i = 0; i < count; i++) {
      const release = await holder.acquire(key, TTL_MS);
      let releasedAt = 0;
      const waiting = waiter.acquire(key, TTL_MS).then((releaseWaiter) => {
        handOffs.push(performance.now() - releasedAt);
        return releaseWaiter();
      });
      await new Promise((resolve) => setTimeout(resolve, MIN_HOLD_MS + Math.random() * (MAX_HOLD_MS - MIN_HOLD_MS)));
      releasedAt = performance.now();
      await release();
      await waiting;
    }
    await Promise.all([holder.close(), waiter.close()]);
    rows.push({
      scenario: "hand-off to a parked waiter",
      subject: subject.name,
      metrics: { "hand-off p50 ms": percentile(handOffs, 50), "hand-off p99 ms": percentile(handOffs, 99) },
    });
  }
  return {
    id: "postgres-parked-hand-off",
    title: `PostgreSQL hand-off to a parked waiter: ${count} times, holder keeps the key ${MIN_HOLD_MS}–${MAX_HOLD_MS} ms, then releases`,
    rows,
    baseline,
    ratioOf: "hand-off p50 ms",
    notes: ["- hand-off: from the start of the holder's release to the waiter's acquire resolving"],
  };
}
