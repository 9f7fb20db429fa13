import { InvalidArgumentError, LockError, LockErrorCode, type LockProvider, type Semaphore, withPermit } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { aborted, abortLateness, elapse, expectLockError, TIMER_ORDER_SLACK_MS, until } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";
import { Witness } from "../witness.js";
import { contenderCount } from "../worker-protocol.js";

const PERMITS = 3;
const ITERATIONS = 20;
const MAX_HOLD_MS = 4;

/** Resolves once the server shows at least `count` waiters in the semaphore's line. */
function queuedFor(semaphore: Semaphore, count: number): Promise<void> {
  return until(`${count} waiter(s) in line for semaphore ${semaphore.name}`, async () => ((await semaphore.inspect())?.waiters ?? 0) >= count);
}

async function contendInProcess(provider: () => Promise<LockProvider>, name: string, witness: Witness, contenders: number, ttlMs: number) {
  await Promise.all(
    Array.from({ length: contenders }, async (_, index) => {
      const semaphore = (await provider()).semaphore(name, { permits: PERMITS });
      const count = contenderCount(index, PERMITS);
      for (let i = 0; i < ITERATIONS; i++) {
        const permit = await semaphore.acquire({ ttlMs, count });
        witness.enter(`local/${index}`, null, count);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_HOLD_MS));
        witness.exit(`local/${index}`);
        await permit.release();
      }
    }),
  );
}

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
        expect(await abortLateness(permit.signal, permit.validUntil, ttlMs + marginMs)).toBeLessThanOrEqual(TIMER_ORDER_SLACK_MS);
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

    built("waitMs runs out with LOCK_TIMEOUT naming the semaphore", async () => {
      const { semaphore } = await open(1);
      await semaphore.acquire({ ttlMs: longTtl });
      const error = await expectLockError(semaphore.acquire({ waitMs: 100 }), LockErrorCode.LockTimeout);
      expect(error.message).toContain(semaphore.name);
    });

    inLine("a waiter for several permits is not overtaken by later smaller requests, and its abort lets them in", async () => {
      const { name, semaphore } = await open();
      const holder = await semaphore.acquire({ ttlMs: longTtl, count: 2 });
      const big = (await harness.provider()).semaphore(name, { permits: PERMITS });
      const controller = new AbortController();
      const bigWait = big.acquire({ count: PERMITS, signal: controller.signal });
      await queuedFor(big, 1);
      expect(await semaphore.tryAcquire()).toBeNull();
      const small = (await harness.provider()).semaphore(name, { permits: PERMITS });
      const smallWait = small.acquire({ ttlMs: longTtl });
      await queuedFor(small, 2);
      controller.abort(new Error("big one gave up"));
      await expect(bigWait).rejects.toThrow("big one gave up");
      const permit = await smallWait;
      expect(permit.count).toBe(1);
      expect((await semaphore.inspect())?.inUse).toBe(3);
      await holder.release();
    });

    inLine("grants waiters in arrival order, across OS processes where the suite has workers", async () => {
      const { name, semaphore } = await open(2);
      const holder = await semaphore.acquire({ ttlMs: longTtl });
      const witness = new Witness(2);
      const waits: Promise<unknown>[] = [];
      const enterLocally = async (contender: string, count: number) => {
        const permit = await (await harness.provider()).semaphore(name, { permits: 2 }).acquire({ ttlMs: longTtl, count });
        witness.enter(contender, null, count);
        witness.exit(contender);
        await permit.release();
      };
      for (let i = 0; i < 4; i++) {
        const contender = `waiter-${i}`;
        const count = i % 2 === 0 ? 2 : 1;
        if (options.crossProcess && i % 2 === 0) {
          const worker = harness.worker(witness);
          await worker.next("ready");
          worker.run({ kind: "permit-enter", name, permits: 2, count, ttlMs: longTtl, contender });
          waits.push(worker.next("released"));
        } else {
          waits.push(enterLocally(contender, count));
        }
        await queuedFor(semaphore, i + 1);
      }
      await holder.release();
      await Promise.all(waits);
      expect(witness.order()).toEqual(["waiter-0", "waiter-1", "waiter-2", "waiter-3"]);
      expect(witness.report().overlaps).toBe(0);
    });

    built("withPermit runs the function with the permit's signal and gives the permits back", async () => {
      const { semaphore } = await open();
      const seen = await withPermit(
        semaphore,
        async (permit, signal) => {
          expect(signal).toBe(permit.signal);
          return (await semaphore.inspect())?.inUse;
        },
        { count: 2 },
      );
      expect(seen).toBe(2);
      expect(await semaphore.inspect()).toBeNull();
      await expect(withPermit(semaphore, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
      expect(await semaphore.inspect()).toBeNull();
    });

    built("close gives held permits back and rejects waits with PROVIDER_CLOSED", async () => {
      const { name } = await open();
      const provider = await harness.provider();
      const semaphore = provider.semaphore(name, { permits: 1 });
      await semaphore.acquire({ ttlMs: longTtl });
      // Handled from the start: the wait may reject while close() is still giving the held permit back.
      const rejected = expectLockError(semaphore.acquire(), LockErrorCode.ProviderClosed);
      await queuedFor(semaphore, 1);
      await provider.close();
      await rejected;
      expect(await (await harness.provider()).semaphore(name, { permits: 1 }).inspect()).toBeNull();
      expect(() => provider.semaphore(name, { permits: 1 })).toThrowError(expect.objectContaining({ code: "PROVIDER_CLOSED" }));
    });

    built("bad input is refused with INVALID_ARGUMENT naming the field, before any server call (also by a closed provider)", async () => {
      const provider = await harness.provider();
      const name = harness.key("bad");
      const field = (call: () => unknown) => {
        try {
          call();
        } catch (error) {
          if (error instanceof InvalidArgumentError) return error.field;
          throw error;
        }
        throw new Error("expected INVALID_ARGUMENT");
      };
      for (const permits of [0, -1, 1.5, Number.NaN, "3"]) expect(field(() => provider.semaphore(name, { permits } as never))).toBe("options.permits");
      expect(field(() => provider.semaphore("", { permits: 1 }))).toBe("name");
      expect(field(() => provider.semaphore(name, { permits: 1, size: 2 } as never))).toBe("options.size");
      const semaphore = provider.semaphore(name, { permits: 2 });
      expect(field(() => provider.semaphore(name, { permits: 3 }))).toBe("options.permits");
      await provider.close();
      expect(field(() => provider.semaphore(name, { permits: 0 }))).toBe("options.permits");
      for (const count of [0, 3, 1.5, -1]) {
        const error = await expectLockError(semaphore.acquire({ count }), LockErrorCode.InvalidArgument);
        expect((error as InvalidArgumentError).field).toBe("options.count");
      }
      const owner = await expectLockError(semaphore.tryAcquire({ owner: "x" } as never), LockErrorCode.InvalidArgument);
      expect((owner as InvalidArgumentError).field).toBe("options.owner");
      const ttl = await expectLockError(semaphore.acquire({ ttlMs: 0 }), LockErrorCode.InvalidArgument);
      expect((ttl as InvalidArgumentError).field).toBe("options.ttlMs");
      await expectLockError(semaphore.acquire(), LockErrorCode.ProviderClosed);
      expect(await (await harness.provider()).semaphore(name, { permits: 2 }).inspect()).toBeNull();
    });

    built("a semaphore in use refuses another permit count from another provider with PERMITS_MISMATCH, and takes it once idle", async () => {
      const { name, semaphore } = await open(2);
      const permit = await semaphore.acquire({ ttlMs: longTtl });
      const other = (await harness.provider()).semaphore(name, { permits: 5 });
      const error = await expectLockError(other.tryAcquire(), LockErrorCode.PermitsMismatch);
      expect(error).toMatchObject({ field: "options.permits", permits: 5, storedPermits: 2 });
      await expectLockError(other.acquire({ waitMs: 1000 }), LockErrorCode.PermitsMismatch);
      await permit.release();
      const now = await other.acquire({ count: 5, ttlMs: longTtl });
      expect((await other.inspect())?.permits).toBe(5);
      await now.release();
    });
  });
}
