import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { LOCK_CHANNELS } from "../diagnostics/lock-channels.js";
import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "../driver/driver-attempt.js";
import { LockErrorCode } from "../errors/error-codes.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "../provider/driver-lock-provider.js";
import type { Lock } from "../types.js";

/** A memory backend (FIFO waiting) that counts its calls, and can answer a set's attempt as the test says. */
class SetDriver extends MemoryLockDriver {
  readonly calls: string[] = [];
  /** Replaces the next `tryAcquireAll` answer (after the store took the set). */
  answerNextSet: ((granted: DriverGranted[]) => Promise<DriverGranted[] | DriverRefused>) | undefined;
  /** Keys whose renewal (a stale grant's confirmation) the server refuses. */
  readonly refuseRenewal = new Set<string>();
  /** Keys this driver says it hears the releases of (contended: their waiters are queued). */
  readonly watching = new Set<string>();
  /** Fails the next `releaseAll` with this error before it reaches the store. */
  failNextReleaseAll: Error | undefined;

  constructor(readonly store: MemoryLockStore) {
    super(store, "fifo");
  }

  override async tryAcquire(request: DriverAcquireRequest) {
    this.calls.push(`tryAcquire ${request.key}`);
    return super.tryAcquire(request);
  }

  override async tryAcquireAll(requests: readonly DriverAcquireRequest[]) {
    this.calls.push(`tryAcquireAll ${requests.map(({ key }) => key).join(",")}`);
    const result = await super.tryAcquireAll(requests);
    const answer = this.answerNextSet;
    this.answerNextSet = undefined;
    return answer === undefined || !Array.isArray(result) ? result : answer(result);
  }

  isWatching(key: string): boolean {
    return this.watching.has(key);
  }

  override async releaseAll(keys: readonly string[], ownerSecret: string) {
    this.calls.push(`releaseAll ${keys.join(",")}`);
    const failure = this.failNextReleaseAll;
    this.failNextReleaseAll = undefined;
    if (failure !== undefined) throw failure;
    return super.releaseAll(keys, ownerSecret);
  }

  override async release(key: string, ownerSecret: string) {
    this.calls.push(`release ${key}`);
    return super.release(key, ownerSecret);
  }

  override async renew(renewals: Parameters<MemoryLockDriver["renew"]>[0]) {
    const results = await super.renew(renewals);
    return results.map((held, i) => held && !this.refuseRenewal.has((renewals[i] as { key: string }).key));
  }
}

const setup = () => {
  const store = new MemoryLockStore();
  const driver = new SetDriver(store);
  return { store, driver, provider: new DriverLockProvider(driver), other: new DriverLockProvider(new MemoryLockDriver(store)) };
};

describe("multi-key sets through a driver's tryAcquireAll and releaseAll", () => {
  it("takes a set with one attempt and releases it with one call", async () => {
    const { driver, provider } = setup();
    const set = await provider.acquireAll(["b", "a", "c"]);
    await set.release();
    expect(driver.calls).toEqual(["tryAcquireAll a,b,c", "releaseAll a,b,c"]);
  });

  it("answers a lock's own release() with the set's call; after a failed call, the next release() tries the server again", async () => {
    const { driver, provider } = setup();
    const set = await provider.acquireAll(["a", "b"]);
    driver.failNextReleaseAll = new Error("connection reset");
    const releasing = set.release();
    const lockReleasing = (set.locks[0] as Lock).release();
    await expect(releasing).rejects.toMatchObject({ code: LockErrorCode.BackendUnavailable });
    await expect(lockReleasing).rejects.toMatchObject({ code: LockErrorCode.BackendUnavailable });
    expect(await provider.inspect("a")).not.toBeNull();
    await set.release();
    await (set.locks[1] as Lock).release();
    expect(driver.calls).toEqual(["tryAcquireAll a,b", "releaseAll a,b", "releaseAll a,b"]);
    expect(await provider.inspect("a")).toBeNull();
    expect(await provider.inspect("b")).toBeNull();
  });

  it("releases the rest of a set together when one of its locks was released on its own first", async () => {
    const { driver, provider } = setup();
    const set = await provider.acquireAll(["a", "b", "c"]);
    await (set.locks[1] as Lock).release();
    await set.release();
    expect(driver.calls).toEqual(["tryAcquireAll a,b,c", "release b", "releaseAll a,c"]);
    for (const key of ["a", "b", "c"]) expect(await provider.inspect(key)).toBeNull();
  });

  it("refused, waits for the first key straight away (no second attempt at it) and then tries the rest together", async () => {
    const { driver, provider, other } = setup();
    const held = await other.acquire("a");
    const waiting = provider.acquireAll(["a", "b", "c"]);
    await expect.poll(() => driver.store.inspect("a")?.waiters).toBe(1);
    await held.release();
    const set = await waiting;
    expect(driver.calls).toEqual(["tryAcquireAll a,b,c", "tryAcquireAll b,c"]);
    expect(set.keys).toEqual(["a", "b", "c"]);
    await set.release();
  });

  it("skips the set's attempt while its first key is contended here: straight to that key's line, then the rest together", async () => {
    const { driver, provider, other } = setup();
    const held = await other.acquire("a");
    driver.watching.add("a");
    const waiting = provider.acquireAll(["a", "b", "c"]);
    await expect.poll(() => driver.store.inspect("a")?.waiters).toBe(1);
    await held.release();
    const set = await waiting;
    expect(driver.calls).toEqual(["tryAcquireAll b,c"]);
    expect(set.keys).toEqual(["a", "b", "c"]);
    await set.release();
  });

  it("gives a set back whole when one of its stale grants cannot be confirmed", async () => {
    const { driver, provider } = setup();
    driver.refuseRenewal.add("b");
    // The answer came long after the lease started (a server election, a paused client): every grant is stale.
    driver.answerNextSet = async (granted) => granted.map((grant) => ({ ...grant, grantedAt: performance.now() - 60_000 }));
    expect(await provider.tryAcquireAll(["a", "b", "c"], { ttlMs: 1_000 })).toBeNull();
    for (const key of ["a", "b", "c"]) expect(driver.store.inspect(key)).toBeNull();
  });

  it("gives back a set answered after close() and rejects with PROVIDER_CLOSED", async () => {
    const { driver, provider } = setup();
    let closing: Promise<void> | undefined;
    driver.answerNextSet = async (granted) => {
      closing = provider.close();
      return granted;
    };
    const error = await provider.tryAcquireAll(["a", "b"]).catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.ProviderClosed)).toBe(true);
    await closing;
    for (const key of ["a", "b"]) expect(driver.store.inspect(key)).toBeNull();
  });

  it("publishes each key of an all-at-once attempt as a call of its own", async () => {
    const { provider } = setup();
    const events: Array<{ key: string; operation: string }> = [];
    const onGranted = (event: unknown) => events.push(event as { key: string; operation: string });
    subscribe(LOCK_CHANNELS.acquireGranted, onGranted);
    try {
      await (await provider.acquireAll(["y", "x"])).release();
    } finally {
      unsubscribe(LOCK_CHANNELS.acquireGranted, onGranted);
    }
    expect(events.map(({ key, operation }) => `${operation} ${key}`)).toEqual(["tryAcquire x", "tryAcquire y"]);
  });
});
