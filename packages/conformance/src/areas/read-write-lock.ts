import { randomUUID } from "node:crypto";
import {
  LockError,
  LockErrorCode,
  MAX_READ_WRITE_NAME_LENGTH,
  MAX_READERS,
  type ReadWriteHold,
  type ReadWriteLock,
  type ReadWriteMode,
  runAsLockOwner,
  type UpgradeRefusedError,
  withReadLock,
  withWriteLock,
} from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { aborted, expectLockError, invalidField, until } from "../expectations.js";
import { type Harness, useHarness } from "../harness.js";
import { contendReadWrite, enterHold } from "../read-write-contention.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";
import { Witness } from "../witness.js";
import type { WorkerHandle } from "../worker-process.js";

const ITERATIONS = 10;
const MAX_HOLD_MS = 3;

/** Resolves once the server shows at least `count` waiters in the read-write lock's line. */
function queuedFor(lock: ReadWriteLock, count: number): Promise<void> {
  return until(`${count} waiter(s) in line for read-write lock ${lock.name}`, async () => ((await lock.inspect())?.waiters ?? 0) >= count);
}

/** A hold reported to `witness` on entry; `leave` reports the exit, then releases. */
interface WitnessedHold {
  readonly hold?: ReadWriteHold;
  leave(): Promise<void>;
}

/** Takes `mode` of `lock` and reports the entry to `witness` the moment it is granted (so an early grant is an overlap). */
async function enterLocally(lock: ReadWriteLock, mode: ReadWriteMode, contender: string, witness: Witness, ttlMs: number): Promise<WitnessedHold> {
  const hold = await lock[mode].acquire({ ttlMs });
  enterHold(witness, contender, hold);
  return {
    hold,
    leave: async () => {
      witness.exit(contender);
      await hold.release();
    },
  };
}

/** Like `enterLocally`, in a worker process where the suite has workers (it reports over IPC); the worker stays for more tasks. */
async function enterElsewhere(
  harness: Harness,
  name: string,
  mode: ReadWriteMode,
  contender: string,
  witness: Witness,
  ttlMs: number,
): Promise<{ entry: WitnessedHold; worker?: WorkerHandle }> {
  if (!harness.options.crossProcess) return { entry: await enterLocally((await harness.provider()).readWriteLock(name), mode, contender, witness, ttlMs) };
  const worker = harness.worker(witness);
  await worker.next("ready");
  worker.run({ kind: "rw-hold", name, mode, ttlMs, contender });
  await worker.next("held");
  const leave = async () => {
    worker.release();
    await worker.next("released");
  };
  return { entry: { leave }, worker };
}

/** Read-write locks: readers share, a writer is alone, a waiting writer goes before later readers, re-entry and upgrade rules. */
export function describeReadWriteLock(options: ResolvedConformanceOptions): void {
  const claimed = options.capabilities.readWriteLock;
  const built = it.skipIf(!claimed);
  // A semaphore's line is strict FIFO on every backend that has semaphores (its driver contract), whatever locks do.
  const inLine = built;
  const where = options.crossProcess ? " across OS processes" : "";

  describe("read-write lock", () => {
    const harness = useHarness(options);
    const { ttlMs, marginMs } = options;
    const longTtl = ttlMs * 30;

    async function open(label: string) {
      const name = harness.key(label);
      return { name, lock: (await harness.provider()).readWriteLock(name) };
    }

    const another = async (name: string) => (await harness.provider()).readWriteLock(name);

    it("reports readWriteLock exactly where the backend has semaphores, and refuses it elsewhere with UNSUPPORTED_OPERATION", async () => {
      const provider = await harness.provider();
      expect(provider.capabilities.readWriteLock).toBe(claimed);
      expect(provider.capabilities.readWriteLock).toBe(provider.capabilities.semaphore);
      if (!claimed) expect(() => provider.readWriteLock(harness.key("unsupported"))).toThrowError(expect.objectContaining({ code: "UNSUPPORTED_OPERATION" }));
    });

    built(
      `readers share${where}, a writer waits for every one of them and then holds alone, and mixed contenders never overlap a writer (witness)`,
      async () => {
        const witness = new Witness(MAX_READERS);
        const { name, lock } = await open("rw-share");
        const entered = await Promise.all([0, 1].map((i) => enterElsewhere(harness, name, "read", `reader-${i}`, witness, longTtl)));
        expect(witness.peak()).toBe(2);
        expect(await lock.inspect()).toMatchObject({ readers: [expect.anything(), expect.anything()], writer: null, waiters: 0 });
        expect(await lock.write.tryAcquire()).toBeNull();
        const writing = enterLocally(lock, "write", "writer", witness, longTtl);
        // The writer is seen waiting in the server's line; it may only enter after both readers left.
        await queuedFor(lock, 1);
        for (const { entry } of entered) await entry.leave();
        const writer = await writing;
        expect(await (await another(name)).read.tryAcquire()).toBeNull();
        expect(await lock.inspect()).toMatchObject({ readers: [], writer: { holder: writer.hold?.holder, fencingToken: writer.hold?.fencingToken } });
        await writer.leave();

        const task = { contenders: 3, iterations: ITERATIONS, ttlMs: longTtl, maxHoldMs: MAX_HOLD_MS };
        const workers = entered.flatMap(({ worker }) => (worker === undefined ? [] : [worker]));
        for (const worker of workers) worker.run({ kind: "rw-contend", name, ...task });
        const localContenders = workers.length === 0 ? 4 : 2;
        await Promise.all([
          contendReadWrite(await another(name), "local", witness, { ...task, contenders: localContenders }),
          ...workers.map((worker) => worker.next("done")),
        ]);
        expect(witness.report()).toEqual({ overlaps: 0, staleWrites: 0, entries: 3 + (localContenders + workers.length * 3) * ITERATIONS });
        expect(await lock.inspect()).toBeNull();
      },
    );

    inLine(
      "a waiting writer goes before the readers that came after it, readers before a later writer, and a reader's re-entry does not queue behind the writer",
      async () => {
        const witness = new Witness(MAX_READERS);
        const { name, lock } = await open("rw-fifo");
        const contender = async (mode: ReadWriteMode, label: string) => enterLocally(await another(name), mode, label, witness, longTtl);
        // reader-1 holds in an owner scope of its own, which the others' acquires are outside of.
        const owner = `reader-1-${randomUUID()}`;
        const first = await runAsLockOwner(() => enterLocally(lock, "read", "reader-1", witness, longTtl), owner);
        const waiting: Promise<WitnessedHold>[] = [];
        // A failed expectation leaves the later waiters to be rejected by the providers' close: not a second failure.
        const wait = (entry: Promise<WitnessedHold>) => {
          entry.catch(() => undefined);
          waiting.push(entry);
        };
        wait(contender("write", "writer-1"));
        await queuedFor(lock, 1);
        expect(await (await another(name)).read.tryAcquire()).toBeNull();
        wait(contender("read", "reader-2"));
        await queuedFor(lock, 2);
        wait(contender("write", "writer-2"));
        await queuedFor(lock, 3);
        wait(contender("read", "reader-3"));
        await queuedFor(lock, 4);
        const nested = await runAsLockOwner(() => lock.read.acquire({ waitMs: 0 }), owner);
        expect([nested.holdCount, nested.fencingToken]).toEqual([2, first.hold?.fencingToken]);
        expect((await lock.inspect())?.waiters).toBe(4);
        await nested.release();
        await first.leave();
        const [writer1, reader2, writer2, reader3] = waiting;
        const holds = [first];
        for (const [next, waitersLeft] of [
          [writer1, 3],
          [reader2, 2],
          [writer2, 1],
          [reader3, 0],
        ] as const) {
          const entry = await (next as Promise<WitnessedHold>);
          const state = await lock.inspect();
          expect(state?.waiters).toBe(waitersLeft);
          expect((state?.writer === null ? 0 : 1) + (state?.readers.length ?? 0)).toBe(1);
          holds.push(entry);
          await entry.leave();
        }
        expect(witness.order()).toEqual(["reader-1", "writer-1", "reader-2", "writer-2", "reader-3"]);
        expect(witness.report()).toEqual({ overlaps: 0, staleWrites: 0, entries: 5 });
        const tokens = holds.map((entry) => entry.hold?.fencingToken as bigint);
        if (options.capabilities.fencing) for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as bigint);
      },
    );

    built("the lost-hold signal aborts with LOCK_LOST before the other side gets in, for a reader and for a writer", async () => {
      const lostBeforeOtherSide = async (lost: ReadWriteMode, next: ReadWriteMode) => {
        const { name, lock } = await open(`rw-lost-${lost}`);
        const hold = await lock[lost].acquire({ ttlMs, autoRenew: false });
        let abortedAt = Number.POSITIVE_INFINITY;
        void aborted(hold.signal).then(() => {
          abortedAt = monotonicNow();
        });
        await (await another(name))[next].acquire({ waitMs: ttlMs + marginMs });
        expect(abortedAt).toBeLessThanOrEqual(monotonicNow());
        expect(LockError.is(hold.signal.reason, LockErrorCode.LockLost)).toBe(true);
        expect(hold.remainingMs()).toBe(0);
        await expectLockError(hold.release(), LockErrorCode.LockLost);
      };
      await Promise.all([lostBeforeOtherSide("read", "write"), lostBeforeOtherSide("write", "read")]);
    });

    built(
      "in one owner scope write re-enters write and read (same grant: token and signal), read re-enters read, and read → write is refused with UPGRADE_REFUSED",
      async () => {
        const { name, lock } = await open("rw-reentry");
        const outsider = await another(name);
        const seen = await withWriteLock(
          lock,
          async (write, signal) => {
            expect(signal).toBe(write.signal);
            const again = await lock.write.tryAcquire();
            const read = await lock.read.acquire({ waitMs: 0 });
            expect([write.holdCount, again?.holdCount, read.holdCount, read.mode]).toEqual([1, 2, 3, "read"]);
            expect([again?.fencingToken, read.fencingToken, read.signal]).toEqual([write.fencingToken, write.fencingToken, write.signal]);
            expect(await outsider.read.tryAcquire()).toBeNull();
            await again?.release();
            await read.release();
            return lock.inspect();
          },
          { ttlMs: longTtl },
        );
        expect(seen).toMatchObject({ readers: [], writer: { fencingToken: expect.anything() }, waiters: 0 });
        expect(await lock.inspect()).toBeNull();

        await withReadLock(lock, async (read) => {
          const again = await lock.read.acquire();
          expect([again.holdCount, again.fencingToken]).toEqual([2, read.fencingToken]);
          const refused = await expectLockError(lock.write.acquire(), LockErrorCode.UpgradeRefused);
          expect((refused as UpgradeRefusedError).readWriteLock).toBe(name);
          await expectLockError(lock.write.tryAcquire(), LockErrorCode.UpgradeRefused);
          expect(await lock.inspect()).toMatchObject({ readers: [expect.anything()], writer: null, waiters: 0 });
          await (await outsider.read.acquire({ waitMs: 0 })).release();
          await again.release();
        });
        expect(await lock.inspect()).toBeNull();
      },
    );

    built("a read taken under a write keeps the lock exclusive until it is released too; outside any owner scope every acquire is its own grant", async () => {
      const { name, lock } = await open("rw-scopes");
      const outsider = await another(name);
      await runAsLockOwner(async () => {
        const write = await lock.write.acquire({ ttlMs: longTtl });
        const read = await lock.read.acquire();
        await write.release();
        expect(await outsider.read.tryAcquire()).toBeNull();
        expect((await lock.inspect())?.writer?.fencingToken).toBe(write.fencingToken);
        await read.release();
      });
      expect(await lock.inspect()).toBeNull();
      const [a, b] = [await lock.read.acquire({ ttlMs: longTtl }), await lock.read.acquire({ ttlMs: longTtl })];
      expect([a.holdCount, b.holdCount, (await lock.inspect())?.readers.length]).toEqual([1, 1, 2]);
      await b.renew(longTtl * 2);
      expect((await lock.inspect())?.readers.at(-1)?.ttlRemainingMs).toBeGreaterThan(longTtl);
      await a.release();
      await b.release();
      await expect(withWriteLock(lock, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
      expect(await lock.inspect()).toBeNull();
    });

    built("bad input is refused with INVALID_ARGUMENT naming the field, before any server call; a semaphore of the same name is another one", async () => {
      const provider = await harness.provider();
      const name = harness.key("rw-bad");
      const lock = provider.readWriteLock(name);
      const permit = await provider.semaphore(name, { permits: 1 }).acquire({ ttlMs: longTtl });
      await (await lock.write.acquire({ ttlMs: longTtl, waitMs: 0 })).release();
      await permit.release();
      expect(invalidField(() => provider.semaphore(`rwlock:${name}`, { permits: 1 }))).toBe("name");
      const longest = provider.readWriteLock("n".repeat(MAX_READ_WRITE_NAME_LENGTH));
      await (await longest.write.acquire({ ttlMs: longTtl, waitMs: 0 })).release();
      await provider.close();
      for (const bad of ["", "n".repeat(MAX_READ_WRITE_NAME_LENGTH + 1), 42, null])
        expect(invalidField(() => provider.readWriteLock(bad as never))).toBe("name");
      for (const side of [lock.read, lock.write]) {
        for (const [bad, field] of [
          [{ owner: "someone" }, "options.owner"],
          [{ count: 2 }, "options.count"],
          [{ ttlMs: 0 }, "options.ttlMs"],
          [{ waitMs: -1 }, "options.waitMs"],
        ] as const) {
          const error = await expectLockError(side.acquire(bad as never), LockErrorCode.InvalidArgument);
          expect((error as LockError & { field: string }).field).toBe(field);
          await expectLockError(side.tryAcquire(bad as never), LockErrorCode.InvalidArgument);
        }
      }
      await expectLockError(lock.read.acquire(), LockErrorCode.ProviderClosed);
      expect(await (await another(name)).inspect()).toBeNull();
    });
  });
}
