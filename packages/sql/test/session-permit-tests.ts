import { LockError, LockErrorCode } from "@distlock/core";
import { expect, it, vi } from "vitest";
import type { SqlLockProvider } from "../src/sql-lock-provider.js";
import { abortedWith, uniqueKey } from "./session-lock-tests.js";
import { rejectionOf } from "./settle.js";

/** How the session-mode semaphore tests reach the server beside the providers under test. */
export interface SessionPermitSetup {
  readonly provider: (label?: string) => SqlLockProvider;
  /** Ends, from an admin connection, the server session that wrote the grant of fencing token `token`. */
  endSessionOfGrant(token: bigint): Promise<void>;
  /** Rows in the permit table, live or not (a refused or abandoned attempt must leave none). */
  permitRows(): Promise<number>;
}

/** What the conformance suite cannot see of session-mode semaphores: the server ending a session, and nothing left behind. */
export function sessionPermitTests({ provider, endSessionOfGrant, permitRows }: SessionPermitSetup): void {
  const LONG_TTL_MS = 30_000;

  it("a permit whose session the server ends frees its permits at once and aborts the permit's signal with LOCK_LOST", async () => {
    const name = uniqueKey("killed-permit");
    const permit = await provider().semaphore(name, { permits: 2 }).acquire({ ttlMs: LONG_TTL_MS, count: 2 });
    const other = provider().semaphore(name, { permits: 2 });
    expect(await other.tryAcquire()).toBeNull();
    await endSessionOfGrant(permit.fencingToken as bigint);
    expect(LockError.is(await abortedWith(permit.signal), LockErrorCode.LockLost)).toBe(true);
    // Long before the 30 s lease: the row counts for nothing once its session is gone. MariaDB closes a killed
    // session's connection before it lets go of the session's locks, so the signal can abort a moment before the
    // permits are free: the wait is bounded, as for a lock (session-lock-tests.ts).
    const next = await other.acquire({ count: 2, waitMs: 1_000 });
    expect(next.count).toBe(2);
    expect(next.fencingToken).toBeGreaterThan(permit.fencingToken as bigint);
    await next.release();
  });

  it("a permit attempt sent on a session the server has just ended is taken on another session", async () => {
    const holding = provider();
    const doomed = await holding.semaphore(uniqueKey("doomed-permit"), { permits: 2 }).acquire({ ttlMs: LONG_TTL_MS });
    await endSessionOfGrant(doomed.fencingToken as bigint);
    // Sent at once: this process has not read yet that the session ended, so it picks that session again.
    const next = await holding.semaphore(uniqueKey("after-end"), { permits: 2 }).tryAcquire({ ttlMs: LONG_TTL_MS });
    expect(typeof next?.fencingToken).toBe("bigint");
    expect(LockError.is(await abortedWith(doomed.signal), LockErrorCode.LockLost)).toBe(true);
    await next?.release();
  });

  it("a count that cannot be fully granted leaves nothing held, also when its wait times out or is aborted", async () => {
    const name = uniqueKey("partial");
    const holder = await provider().semaphore(name, { permits: 3 }).acquire({ ttlMs: LONG_TTL_MS, count: 2 });
    const rows = await permitRows();
    const other = provider().semaphore(name, { permits: 3 });
    expect(await other.tryAcquire({ count: 2 })).toBeNull();
    const timedOut = await rejectionOf(other.acquire({ count: 2, waitMs: 200 }));
    expect(LockError.is(timedOut, LockErrorCode.LockTimeout)).toBe(true);
    const controller = new AbortController();
    const waiting = rejectionOf(other.acquire({ count: 3, signal: controller.signal }));
    // Aborted once it stands in the line, its first attempt refused and settled. (A first attempt abandoned in flight is
    // core's to give back, and may land after the holder's release: first-attempt.test.ts covers it.)
    await vi.waitFor(async () => expect((await other.inspect())?.waiters).toBe(1), { timeout: 5_000 });
    controller.abort(new Error("gave up"));
    expect(await waiting).toBeInstanceOf(Error);
    expect(await permitRows()).toBe(rows);
    expect(await other.inspect()).toMatchObject({ inUse: 2, waiters: 0, holders: [{ count: 2, fencingToken: holder.fencingToken }] });
    await holder.release();
    expect(await permitRows()).toBe(rows - 1);
    expect(await other.inspect()).toBeNull();
  });

  it("a writer of a read-write lock is refused while a reader's session lives, and gets in once the server ends it", async () => {
    const name = uniqueKey("rw-killed");
    const reader = await provider().readWriteLock(name).read.acquire({ ttlMs: LONG_TTL_MS });
    const writer = provider().readWriteLock(name);
    expect(await writer.write.tryAcquire()).toBeNull();
    await endSessionOfGrant(reader.fencingToken as bigint);
    await abortedWith(reader.signal);
    const write = await writer.write.acquire({ ttlMs: LONG_TTL_MS, waitMs: 1_000 });
    expect((await writer.inspect())?.writer?.fencingToken).toBe(write.fencingToken);
    await write.release();
  });
}
