import { LockErrorCode, type LockProvider, MAX_MULTI_KEYS, runAsLockOwner } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { aborted, expectLockError } from "../expectations.js";
import { useHarness } from "../harness.js";
import { KeyWitnesses } from "../key-witnesses.js";
import { contendForKeySets } from "../multi-key-contention.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

const SHARED_KEYS = 4;
const ITERATIONS = 12;

/** The keys of `keys` that `provider` reads as held by anyone. */
async function heldKeys(provider: LockProvider, keys: readonly string[]): Promise<string[]> {
  const states = await Promise.all(keys.map((key) => provider.inspect(key)));
  return keys.filter((_, index) => states[index] !== null);
}

/** No key of `keys` is held by anyone. */
async function expectAllFree(provider: LockProvider, keys: readonly string[]): Promise<void> {
  expect(await heldKeys(provider, keys)).toEqual([]);
}

/** No key of `keys` is held by anyone within 10 s: for keys that can only go from held to free. */
async function expectAllFreeSoon(provider: LockProvider, keys: readonly string[]): Promise<void> {
  await expect.poll(() => heldKeys(provider, keys), { timeout: 10_000 }).toEqual([]);
}

/** Multi-key locks: several keys held all or none, in one global order, one signal for the set, a token per key. */
export function describeMultiKey(options: ResolvedConformanceOptions): void {
  describe("multi-key", () => {
    const harness = useHarness(options);
    const ttlMs = Math.max(options.ttlMs, 10_000);
    /** `count` fresh keys, named here in their byte order. */
    const keySet = (label: string, count: number) => {
      const base = harness.key(label);
      return Array.from({ length: count }, (_, i) => `${base}:${i}`);
    };

    it("holds every key of the set at once, in byte order, each with its own token, until released", async () => {
      const provider = await harness.provider();
      const keys = keySet("set", 3).reverse();
      const locks = await provider.acquireAll(keys, { ttlMs });
      expect(locks.keys).toEqual([...keys].sort());
      expect(locks.locks.map((lock) => lock.key)).toEqual(locks.keys);
      for (const lock of locks.locks) {
        const state = await provider.inspect(lock.key);
        expect(state?.holder).toBe(locks.holder);
        expect(state?.fencingToken).toBe(lock.fencingToken);
        expect(locks.fencingTokens.get(lock.key)).toBe(lock.fencingToken);
      }
      expect(locks.remainingMs()).toBeGreaterThan(0);
      expect(locks.validUntil).toBe(Math.min(...locks.locks.map((lock) => lock.validUntil)));
      await locks.renew();
      await locks.release();
      await locks.release();
      await expectAllFree(provider, keys);
    });

    it("releases every key on `await using`", async () => {
      const provider = await harness.provider();
      const keys = keySet("using", 2);
      {
        await using locks = await provider.acquireAll(keys, { ttlMs });
        expect(locks.locks).toHaveLength(2);
      }
      await expectAllFree(provider, keys);
    });

    it.skipIf(!options.capabilities.fencing)("tokens increase per key across successive holders of the set", async () => {
      const keys = keySet("tokens", 3);
      const first = await (await harness.provider()).acquireAll(keys, { ttlMs });
      await first.release();
      const second = await (await harness.provider()).acquireAll(keys, { ttlMs });
      for (const key of keys) expect(second.fencingTokens.get(key) as bigint).toBeGreaterThan(first.fencingTokens.get(key) as bigint);
      await second.release();
    });

    it("tryAcquireAll takes nothing when one key of the set is held by another owner", async () => {
      const [holder, caller] = [await harness.provider(), await harness.provider()];
      const keys = keySet("try", 3);
      const held = await holder.acquire(keys[1] as string, { ttlMs });
      expect(await caller.tryAcquireAll(keys, { ttlMs })).toBeNull();
      await held.release();
      await expectAllFree(caller, keys);
    });

    it("a timed-out acquireAll leaves no key held and names the key it waited for", async () => {
      const [holder, caller] = [await harness.provider(), await harness.provider()];
      const keys = keySet("timeout", 3);
      const held = await holder.acquire(keys[2] as string, { ttlMs });
      // Long enough to take the two free keys on the way even under load: the time runs out waiting for the held one.
      const error = await expectLockError(caller.acquireAll(keys, { ttlMs, waitMs: 1_000 }), LockErrorCode.LockTimeout);
      expect((error as unknown as { key: string }).key).toBe(keys[2]);
      await held.release();
      await expectAllFree(caller, keys);
    });

    it("an aborted acquireAll rejects with the signal's reason and leaves no key held", async () => {
      const [holder, caller] = [await harness.provider(), await harness.provider()];
      const keys = keySet("abort", 3);
      const held = await holder.acquire(keys[1] as string, { ttlMs });
      const giveUp = new AbortController();
      const waiting = caller.acquireAll(keys, { ttlMs, signal: giveUp.signal });
      await expect.poll(() => caller.inspect(keys[0] as string)).not.toBeNull();
      const reason = new Error("gave up");
      giveUp.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      await held.release();
      // The attempt that took the first key may still be in flight at the abort: it is abandoned, and its grant given
      // back when the answer comes. The key was held before the abort, so it can only go from held to free.
      await expectAllFreeSoon(caller, keys);
    });

    it("re-enters the keys its owner already holds and takes the rest", async () => {
      const provider = await harness.provider();
      const keys = keySet("reenter", 2);
      await runAsLockOwner(async () => {
        const first = await provider.acquire(keys[0] as string, { ttlMs });
        const locks = await provider.acquireAll(keys, { ttlMs });
        expect(locks.locks.map((lock) => lock.holdCount)).toEqual([2, 1]);
        expect(locks.fencingTokens.get(keys[0] as string)).toBe(first.fencingToken);
        await locks.release();
        expect((await provider.inspect(keys[0] as string))?.holdCount).toBe(1);
        expect(await provider.inspect(keys[1] as string)).toBeNull();
        await first.release();
      });
    });

    it("aborts the set's signal with LOCK_LOST when one key's hold is lost", async () => {
      const [holder, admin] = [await harness.provider(), await harness.provider()];
      const keys = keySet("lost", 3);
      const locks = await holder.acquireAll(keys, { ttlMs });
      await admin.forceRelease(keys[1] as string);
      await expectLockError(locks.renew(), LockErrorCode.LockLost);
      expect(((await aborted(locks.signal)) as { code?: string }).code).toBe(LockErrorCode.LockLost);
      expect(locks.remainingMs()).toBe(0);
      await locks.release().catch(() => undefined);
    });

    it("rejects bad key lists by field before any server call", async () => {
      const provider = await harness.provider();
      const key = harness.key("bad");
      const tooMany = Array.from({ length: MAX_MULTI_KEYS + 1 }, (_, i) => `${key}:${i}`);
      const cases: Array<[unknown, string]> = [
        [[], "keys"],
        ["k", "keys"],
        [tooMany, "keys"],
        [[key, key], "keys[1]"],
        [[key, ""], "keys[1]"],
        [[key, 7], "keys[1]"],
      ];
      for (const [keys, field] of cases) {
        for (const call of [() => provider.acquireAll(keys as string[]), () => provider.tryAcquireAll(keys as string[])]) {
          const error = await expectLockError(call(), LockErrorCode.InvalidArgument);
          expect((error as unknown as { field: string }).field).toBe(field);
        }
      }
      await expectLockError(provider.acquireAll([key], { ttlMs: 0 }), LockErrorCode.InvalidArgument);
      expect(await provider.inspect(key)).toBeNull();
    });

    it.skipIf(!options.crossProcess)("sets named in random orders over shared keys, in three OS processes, never overlap and never deadlock", async () => {
      const witnesses = new KeyWitnesses();
      const keys = keySet("shared", SHARED_KEYS);
      const task = { keys, contenders: 2, iterations: ITERATIONS, ttlMs, waitMs: 20_000, maxHoldMs: 3 };
      const workers = [harness.worker(witnesses), harness.worker(witnesses)];
      for (const worker of workers) await worker.next("ready");
      for (const worker of workers) worker.run({ kind: "multi-contend", ...task });
      const local = contendForKeySets(await harness.provider(), "local", witnesses, task);
      const [here, ...there] = await Promise.all([local, ...workers.map((worker) => worker.next("done"))]);
      expect([here, ...there.map((done) => done.acquisitions)]).toEqual([2 * ITERATIONS, 2 * ITERATIONS, 2 * ITERATIONS]);
      expect(witnesses.report().overlaps).toBe(0);
      expect(witnesses.report().staleWrites).toBe(0);
    });

    it.skipIf(!options.crossProcess)("frees every key of a SIGKILLed holder's set within TTL + margin", async () => {
      const keys = keySet("killed", 3);
      const worker = harness.worker();
      await worker.next("ready");
      worker.run({ kind: "multi-hold", keys, ttlMs: options.ttlMs });
      await worker.next("held");
      const other = await harness.provider();
      expect(await other.tryAcquireAll(keys, { ttlMs })).toBeNull();
      worker.kill();
      await worker.exited;
      const started = monotonicNow();
      const locks = await other.acquireAll(keys, { ttlMs, waitMs: options.ttlMs + options.marginMs });
      expect(monotonicNow() - started).toBeLessThan(options.ttlMs + options.marginMs);
      expect(locks.locks.map((lock) => lock.holdCount)).toEqual([1, 1, 1]);
    });
  });
}
