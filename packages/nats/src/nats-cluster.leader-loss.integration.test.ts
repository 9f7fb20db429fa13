import { randomUUID } from "node:crypto";
import { NatsLockProvider } from "@distlock/nats";
import { startNatsCluster } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";

const cluster = await startNatsCluster(3);
afterAll(() => cluster.close());

const BUCKET = "leader-loss";

/**
 * nats-server 2.9 elects a new stream leader 4–9 s after the old one stops answering; a call whose tries span that
 * (`commandTimeoutMs`) has to find it, whatever its first try met: a request to the killed leader, never answered, or
 * "no responders" while nobody leads.
 */
const url = `${cluster.url}/${BUCKET}?replicas=3&commandTimeoutMs=20000`;

/** Election (at most 9 s), the killed server's restart, the holder's lease and a few round trips. */
const GRANT_BOUND_MS = 15_000;

async function until(fact: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await fact())) {
    if (performance.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("nats cluster: the stream leader is killed and started again", () => {
  it("a waiter gets the key once a new leader is elected, within a bound", async () => {
    const holder = new NatsLockProvider({ url });
    const waiter = new NatsLockProvider({ url });
    try {
      const key = `k-${randomUUID()}`;
      // A hold nobody renews: it lapses during the outage, so only the waiter's own calls stand between it and the key.
      await holder.acquire(key, { ttlMs: 2_000, autoRenew: false });
      const waiting = waiter.acquire(key, { waitMs: 60_000 });
      await until(async () => (await waiter.inspect(key))?.waiters === 1, 10_000);

      const leader = await cluster.streamLeader(`KV_${BUCKET}`);
      if (leader === undefined) throw new Error("no stream leader");
      await leader.kill();
      const killedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await leader.start();

      const lock = await waiting;
      expect(performance.now() - killedAt).toBeLessThan(GRANT_BOUND_MS);
      await lock.release();
    } finally {
      await Promise.all([holder.close(), waiter.close()]);
    }
  }, 90_000);
});
