import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { abortByDeadline, aborted, elapse, expectLockError } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";
import { Witness } from "../witness.js";
import { contendInProcess, ITERATIONS, MAX_HOLD_MS, PERMITS, queuedFor } from "./semaphore-contention.js";
import { describeSemaphoreUse } from "./semaphore-use.js";

/** Counting semaphores: at most N permits at once across processes, permits that live like locks, all-or-nothing counts. */
export function describeSemaphore(options: ResolvedConformanceOptions): void {
  const claimed = options.capabilities.semaphore;
  const built = it.skipIf(!claimed);
  const acrossProcesses = it.skipIf(!claimed || !options.crossProcess);
  // Every semaphore driver serves a strict FIFO line (its contract), also where locks are not FIFO (SQL).
  const inLine = built;

  describe("semaphore", () => {
    const harness = useHarness(options);
    const { ttlMs, marginMs } = options;
    const longTtl = ttlMs * 30;

    async function open(permits = PERMITS, label = "semaphore") {
      const name = harness.key(label);
      return { name, semaphore: (await harness.provider()).semaphore(name, { permits }) };
    }

    it("reports the semaphore capability the suite was told", async () => {
      const provider = await harness.provider();
      expect(provider.capabilities.semaphore).toBe(claimed);
      if (!claimed)
        expect(() => provider.semaphore(harness.key("unsupported"), { permits: 2 })).toThrowError(expect.objectContaining({ code: "UNSUPPORTED_OPERATION" }));
    });

    built(`keeps 8 contenders in one process within ${PERMITS} permits, taking 1 or 2 at a time`, async () => {
      const witness = new Witness(PERMITS);
      await contendInProcess(() => harness.provider(), harness.key("sem-local"), witness, 8, Math.max(ttlMs, 10_000));
      expect(witness.report()).toEqual({ overlaps: 0, staleWrites: 0, entries: 8 * ITERATIONS });
      expect(witness.peak()).toBeGreaterThan(1);
    });

    acrossProcesses(`keeps contenders spread over three OS processes within ${PERMITS} permits (cross-process witness)`, async () => {
      const witness = new Witness(PERMITS);
      const name = harness.key("sem-processes");
      const workers = [harness.worker(witness), harness.worker(witness)];
      for (const worker of workers) await worker.next("ready");
      const task = { kind: "permit-contend", name, permits: PERMITS, contenders: 3, iterations: ITERATIONS, ttlMs: 10_000, maxHoldMs: MAX_HOLD_MS } as const;
      for (const worker of workers) worker.run(task);
      await Promise.all([contendInProcess(() => harness.provider(), name, witness, 2, 10_000), ...workers.map((w) => w.next("done"))]);
      expect(witness.report()).toEqual({ overlaps: 0, staleWrites: 0, entries: 8 * ITERATIONS });
      expect(witness.peak()).toBeGreaterThan(1);
    });

    built("takes several permits all or nothing: tryAcquire gets null while fewer are free, and inspect shows holders and permits in use", async () => {
      const { semaphore } = await open();
      const first = await semaphore.acquire({ ttlMs: longTtl, count: 2 });
      expect(first.count).toBe(2);
      expect(await semaphore.tryAcquire({ count: 2 })).toBeNull();
      const second = await semaphore.tryAcquire({ ttlMs: longTtl });
      expect(second?.count).toBe(1);
      expect(await semaphore.tryAcquire()).toBeNull();
      const state = await semaphore.inspect();
      expect(state).toMatchObject({ name: semaphore.name, permits: PERMITS, inUse: 3, waiters: 0 });
      expect(state?.holders.map((h) => h.count).sort()).toEqual([1, 2]);
      expect(state?.holders.every((h) => h.holder === first.holder && h.ttlRemainingMs > 0)).toBe(true);
      await first.release();
      await second?.release();
      expect(await semaphore.inspect()).toBeNull();
    });

    built("fencing tokens strictly increase across grants and differ between concurrent holders", async () => {
      const { name, semaphore } = await open();
      const other = (await harness.provider()).semaphore(name, { permits: PERMITS });
      const tokens: bigint[] = [];
      for (let i = 0; i < 10; i++) {
        const permit = await (i % 2 === 0 ? semaphore : other).acquire({ ttlMs: longTtl, count: 1 + (i % PERMITS) });
        tokens.push(permit.fencingToken as bigint);
        await permit.release();
      }
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as bigint);
      const together = [await semaphore.acquire({ ttlMs: longTtl }), await other.acquire({ ttlMs: longTtl })];
      expect(together[1]?.fencingToken).toBeGreaterThan(together[0]?.fencingToken as bigint);
      expect(together[0]?.fencingToken).toBeGreaterThan(tokens.at(-1) as bigint);
    });

    built("permits of a holder that stops renewing are freed within their TTL", async () => {
      const { name, semaphore } = await open(2);
      await semaphore.acquire({ ttlMs, count: 2, autoRenew: false });
      const started = monotonicNow();
      const other = (await harness.provider()).semaphore(name, { permits: 2 });
      const permit = await other.acquire({ ttlMs, count: 2, waitMs: ttlMs + marginMs });
      expect(monotonicNow() - started).toBeLessThan(ttlMs + marginMs);
      expect(permit.count).toBe(2);
    });

    acrossProcesses("permits of a SIGKILLed holder process are freed within TTL + margin", async () => {
      const name = harness.key("sem-killed");
      const worker = harness.worker();
      await worker.next("ready");
      worker.run({ kind: "permit-hold", name, permits: 2, count: 2, ttlMs });
      expect((await worker.next("held")).holdCount).toBe(2);
      const semaphore = (await harness.provider()).semaphore(name, { permits: 2 });
      expect(await semaphore.tryAcquire({ ttlMs })).toBeNull();
      worker.kill();
      await worker.exited;
      const started = monotonicNow();
      const permit = await semaphore.acquire({ ttlMs, count: 2, waitMs: ttlMs + marginMs });
      expect(monotonicNow() - started).toBeLessThan(ttlMs + marginMs);
      expect(permit.count).toBe(2);
    });

    built("only the owner releases or renews: a lapsed permit's release and renew fail with LOCK_LOST and leave the new holder's permits", async () => {
      const { name, semaphore } = await open(1);
      const stale = await semaphore.acquire({ ttlMs, autoRenew: false });
      await aborted(stale.signal);
      const other = (await harness.provider()).semaphore(name, { permits: 1 });
      const fresh = await other.acquire({ ttlMs: longTtl, waitMs: ttlMs + marginMs });
      await expectLockError(stale.release(), LockErrorCode.LockLost);
      await expectLockError(stale.renew(longTtl), LockErrorCode.LockLost);
      const state = await other.inspect();
      expect(state?.inUse).toBe(1);
      expect(state?.holders[0]?.fencingToken).toBe(fresh.fencingToken);
      expect(fresh.signal.aborted).toBe(false);
      await fresh.release();
      await fresh.release();
      expect(await other.inspect()).toBeNull();
    });

    built("the lost-permit signal aborts with LOCK_LOST before anyone else gets the permit when renewals stop", async () => {
      const { name, semaphore } = await open(1);
      const permit = await semaphore.acquire({ ttlMs, autoRenew: false });
      let abortedAt = Number.POSITIVE_INFINITY;
      void aborted(permit.signal).then(() => {
        abortedAt = monotonicNow();
      });
      await (await harness.provider()).semaphore(name, { permits: 1 }).acquire({ waitMs: ttlMs + marginMs });
      expect(abortedAt).toBeLessThanOrEqual(monotonicNow());
      expect(LockError.is(permit.signal.reason, LockErrorCode.LockLost)).toBe(true);
      expect(permit.remainingMs()).toBe(0);
    });

    built("the watchdog keeps a permit past 3 x TTL", async () => {
      const { name, semaphore } = await open(1);
      const permit = await semaphore.acquire({ ttlMs });
      await elapse(ttlMs * 3.5);
      expect(await (await harness.provider()).semaphore(name, { permits: 1 }).tryAcquire()).toBeNull();
      expect(permit.signal.aborted).toBe(false);
      await permit.release();
    });

    it.skipIf(!claimed || options.faults === undefined)("the lost-permit signal aborts by the deadline when the server stops answering", async () => {
      const faults = options.faults as NonNullable<typeof options.faults>;
      const { semaphore } = await open(2);
      const permit = await semaphore.acquire({ ttlMs });
      await faults.pause();
      try {
        expect(await abortByDeadline(permit.signal, permit.validUntil, ttlMs + marginMs)).toBe("in time");
        expect(LockError.is(permit.signal.reason, LockErrorCode.LockLost)).toBe(true);
      } finally {
        await faults.resume();
      }
    });

    built("aborting a wait for several permits rejects with the reason and leaves nothing held", async () => {
      const { name, semaphore } = await open();
      const holder = await semaphore.acquire({ ttlMs: longTtl, count: 2 });
      const waiter = (await harness.provider()).semaphore(name, { permits: PERMITS });
      const controller = new AbortController();
      const reason = new Error("caller gave up");
      const waiting = waiter.acquire({ count: PERMITS, signal: controller.signal });
      await queuedFor(waiter, 1);
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      await holder.release();
      expect(await waiter.inspect()).toBeNull();
      expect((await waiter.tryAcquire({ count: PERMITS }))?.count).toBe(PERMITS);
    });

    describeSemaphoreUse({ harness, options, open, built, inLine });
  });
}
