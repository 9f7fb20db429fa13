import { randomUUID } from "node:crypto";
import { type Lock, LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { startEtcdCluster } from "@distlock/test-servers";
import { Etcd3 } from "etcd3";
import { afterEach, describe, expect, it } from "vitest";
import { untilQueueLength } from "../test/queue-length.js";
import { EtcdLockProvider } from "./etcd-lock-provider.js";

/** Session TTL = hold TTL; long enough that a loaded CI machine renews in time through an election. */
const TTL_MS = 4000;

/** Resolves with the signal's reason and the monotonic time it aborted. */
function abortedAt(signal: AbortSignal): Promise<{ reason: unknown; at: number }> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ reason: signal.reason, at: monotonicNow() }), { once: true }));
}

/** Resolves after `ms`: for time itself (leases running on), never to order events. */
function elapse(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("etcd 3-member cluster faults", () => {
  const providers: EtcdLockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  async function withCluster(run: (cluster: Awaited<ReturnType<typeof startEtcdCluster>>, raw: Etcd3) => Promise<void>) {
    const cluster = await startEtcdCluster(3);
    const raw = new Etcd3({ hosts: [...cluster.endpoints] });
    try {
      await run(cluster, raw);
    } finally {
      await Promise.allSettled(providers.splice(0).map((p) => p.close()));
      raw.close();
      await cluster.close();
    }
  }

  function provider(hosts: readonly string[]): EtcdLockProvider {
    const locks = new EtcdLockProvider({ hosts, sessionTtlMs: TTL_MS, requestTimeoutMs: 1_000 });
    providers.push(locks);
    return locks;
  }

  it("killing the leader keeps held locks (renewed through the new leader) and waiters still get the key in FIFO order", async () => {
    await withCluster(async (cluster, raw) => {
      const [key, other] = [`faults-${randomUUID()}`, `faults-${randomUUID()}`];
      const holder = await provider(cluster.endpoints).acquire(key, { ttlMs: TTL_MS });
      const bystander = await provider(cluster.endpoints).acquire(other, { ttlMs: TTL_MS * 5 });
      const order: number[] = [];
      const waiters: Promise<void>[] = [];
      for (let i = 0; i < 3; i++) {
        waiters.push(
          provider(cluster.endpoints)
            .acquire(key, { ttlMs: TTL_MS, waitMs: 30_000 })
            .then(async (lock) => {
              order.push(i);
              await lock.release();
            }),
        );
        await untilQueueLength(raw, `distlock/${key}/`, i + 2);
      }
      const leader = await cluster.leader();
      await leader.kill();
      await cluster.leader();
      // Time itself: two session TTLs, which only keep-alives through the new leader carry the holds through.
      await elapse(TTL_MS * 2);
      expect(holder.signal.aborted).toBe(false);
      expect(bystander.signal.aborted).toBe(false);
      expect((await provider(cluster.endpoints).inspect(key))?.holder).toBe(holder.holder);
      expect(order).toEqual([]);
      await holder.release();
      await Promise.all(waiters);
      expect(order).toEqual([0, 1, 2]);
      await bystander.release();
    });
  });

  it("losing quorum (2 of 3 killed) aborts every holder's signal by its deadline, and nobody else holds the key before that", async () => {
    await withCluster(async (cluster, raw) => {
      const keys = [`faults-${randomUUID()}`, `faults-${randomUUID()}`];
      const holders: Lock[] = [
        await provider(cluster.endpoints).acquire(keys[0] as string, { ttlMs: TTL_MS }),
        await provider(cluster.endpoints).acquire(keys[1] as string, { ttlMs: TTL_MS * 2 }),
      ];
      const losses = holders.map((lock) => abortedAt(lock.signal));
      let contenderAt = Number.POSITIVE_INFINITY;
      const contender = provider(cluster.endpoints)
        .acquire(keys[0] as string, { ttlMs: TTL_MS, waitMs: 60_000 })
        .then((lock) => {
          contenderAt = monotonicNow();
          return lock;
        });
      await untilQueueLength(raw, `distlock/${keys[0]}/`, 2);
      const leader = await cluster.leader();
      const follower = cluster.members.find((member) => member !== leader);
      const killedAt = monotonicNow();
      await Promise.all([leader.kill(), follower?.kill()]);
      const lost = await Promise.all(losses);
      const ttls = [TTL_MS, TTL_MS * 2];
      lost.forEach(({ reason, at }, i) => {
        expect(LockError.is(reason, LockErrorCode.LockLost)).toBe(true);
        expect(at - killedAt).toBeLessThanOrEqual((ttls[i] as number) + 50);
      });
      await Promise.all([leader.start(), follower?.start()]);
      const next = await contender;
      expect(contenderAt).toBeGreaterThan(lost[0]?.at as number);
      expect(next.fencingToken).toBeGreaterThan(holders[0]?.fencingToken as bigint);
      // The contender's session lease was made before the outage; on a loaded machine its keep-alive may not reconnect
      // within the TTL after the restart, and then its hold is lost too, which its release reports (CI, 2026-11-30).
      const released = await next.release().then(
        () => "released",
        (error: unknown) => error,
      );
      if (released !== "released") expect(LockError.is(released, LockErrorCode.LockLost), String(released)).toBe(true);
    });
  });
});
