import { InvalidArgumentError, LockErrorCode, type Semaphore, withPermit } from "@distlock/core";
import { expect, type it } from "vitest";
import { expectLockError } from "../expectations.js";
import type { Harness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";
import { Witness } from "../witness.js";
import { PERMITS, queuedFor } from "./semaphore-contention.js";

/** What the semaphore area hands the tests of waiting and use it registers through `describeSemaphoreUse`. */
export interface SemaphoreAreaContext {
  readonly harness: Harness;
  readonly options: ResolvedConformanceOptions;
  readonly open: (permits?: number, label?: string) => Promise<{ name: string; semaphore: Semaphore }>;
  /** `it`, skipped without the semaphore capability. */
  readonly built: typeof it | ReturnType<typeof it.skipIf>;
  /** `built`, for the line's order (every semaphore driver serves a strict FIFO line). */
  readonly inLine: typeof it | ReturnType<typeof it.skipIf>;
}

/** The semaphore area's tests of waiting (timeouts, the line's order), `withPermit`, `close`, bad input and permit counts. */
export function describeSemaphoreUse({ harness, options, open, built, inLine }: SemaphoreAreaContext): void {
  const { ttlMs } = options;
  const longTtl = ttlMs * 30;
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
}
