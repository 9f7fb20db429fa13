import { describe, expect, it, vi } from "vitest";
import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** A memory backend whose acquire answers arrive late, like a server behind a slow or saturated link; it keeps each answer still to come. */
class SlowAcquireDriver extends MemoryLockDriver {
  readonly answers: Promise<unknown>[] = [];

  constructor(
    store: MemoryLockStore,
    readonly delayMs: number,
  ) {
    super(store);
  }

  override tryAcquire(request: DriverAcquireRequest) {
    // The latency itself is what this driver simulates: the answer comes `delayMs` after the request.
    const answer = new Promise((resolve) => setTimeout(resolve, this.delayMs)).then(() => super.tryAcquire(request));
    this.answers.push(answer);
    return answer;
  }
}

/**
 * A memory backend without native waiting (release notifications, like Redlock), counting attempts per owner and
 * the release watches its waiters opened (a waiter opens one once it is first in this process's line).
 */
class CountingDriver extends MemoryLockDriver {
  readonly attempts = new Map<string, number>();
  watches = 0;

  constructor(store: MemoryLockStore) {
    super(store, "notify");
    const watch = this.watchReleases as NonNullable<MemoryLockDriver["watchReleases"]>;
    Object.assign(this, {
      watchReleases: (key: string) => {
        this.watches += 1;
        return watch(key);
      },
    });
  }

  override async tryAcquire(request: DriverAcquireRequest) {
    this.attempts.set(request.ownerSecret, (this.attempts.get(request.ownerSecret) ?? 0) + 1);
    return super.tryAcquire(request);
  }
}

/** A memory backend with native (FIFO) waiting that says whether it watches a key, counting first attempts and waits. */
class WatchingDriver extends MemoryLockDriver {
  readonly watching = new Set<string>();
  firstAttempts = 0;
  waits = 0;

  constructor(store: MemoryLockStore) {
    super(store, "fifo");
    const wait = this.acquire as NonNullable<MemoryLockDriver["acquire"]>;
    Object.assign(this, {
      acquire: (request: DriverAcquireRequest, options: { signal: AbortSignal }) => {
        this.waits += 1;
        return wait(request, options);
      },
    });
  }

  isWatching(key: string): boolean {
    return this.watching.has(key);
  }

  override async tryAcquire(request: DriverAcquireRequest) {
    this.firstAttempts += 1;
    return super.tryAcquire(request);
  }
}

async function codeOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return LockError.is(error) ? error.code : error;
}

describe("the first attempt of acquire", () => {
  it("is bounded by waitMs, and a grant that arrives later is released again", async () => {
    const store = new MemoryLockStore();
    const driver = new SlowAcquireDriver(store, 300);
    const provider = new DriverLockProvider(driver);
    const started = performance.now();
    expect(await codeOf(provider.acquire("k", { waitMs: 50 }))).toBe("LOCK_TIMEOUT");
    expect(performance.now() - started).toBeLessThan(250);
    // The grant has arrived once its answer has; then the provider gives it back.
    await Promise.all(driver.answers);
    await vi.waitFor(() => expect(store.inspect("k")).toBeNull());
    await provider.close();
  });

  it("is cut short by the caller's signal; close() rejects it with PROVIDER_CLOSED and gives its late grant back", async () => {
    const store = new MemoryLockStore();
    const driver = new SlowAcquireDriver(store, 300);
    const provider = new DriverLockProvider(driver);
    const controller = new AbortController();
    const reason = new Error("gave up");
    const aborted = provider.acquire("a", { signal: controller.signal });
    const tried = provider.tryAcquire("b", { signal: controller.signal });
    // Cut short while both first attempts are on their way, their answers still to come.
    await vi.waitFor(() => expect(driver.answers).toHaveLength(2));
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    await expect(tried).rejects.toBe(reason);
    const closing = provider.acquire("c");
    await vi.waitFor(() => expect(driver.answers).toHaveLength(3));
    void provider.close();
    expect(await codeOf(closing)).toBe("PROVIDER_CLOSED");
    await Promise.all(driver.answers);
    await vi.waitFor(() => expect([store.inspect("a"), store.inspect("b"), store.inspect("c")]).toEqual([null, null, null]));
  });

  it("with waitMs 0 is one attempt that is allowed to finish", async () => {
    const provider = new DriverLockProvider(new SlowAcquireDriver(new MemoryLockStore(), 50));
    expect((await provider.acquire("k", { waitMs: 0 })).holdCount).toBe(1);
    await provider.close();
  });

  it("is skipped by a new owner while others in this process wait for the key: it queues behind them", async () => {
    const driver = new CountingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const allAttempts = () => [...driver.attempts.values()].reduce((sum, n) => sum + n, 0);
    const holder = await provider.acquire("k", { owner: "holder" });
    const first = provider.acquire("k", { owner: "first-waiter" });
    // Refused once, then first in this process's line, watching for the release.
    await vi.waitFor(() => expect([driver.attempts.get("first-waiter"), driver.watches]).toEqual([1, 1]));
    const before = allAttempts();
    const second = provider.acquire("k");
    expect(allAttempts()).toBe(before);
    await holder.release();
    const firstLock = await first;
    expect(firstLock.holdCount).toBe(1);
    // The only attempt since is the first waiter's, on the release: the second has not tried while others waited.
    expect(allAttempts()).toBe(before + 1);
    await firstLock.release();
    expect((await second).holdCount).toBe(1);
    expect(allAttempts()).toBe(before + 2);
    await provider.close();
  });

  it("is still made by a known owner while others wait, so an owner holding the key re-enters instead of queueing behind them", async () => {
    const driver = new CountingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const lock = await provider.acquire("k", { owner: "holder" });
    const waiter = provider.acquire("k", { waitMs: 5_000 });
    waiter.catch(() => undefined);
    // The waiter is in this process's line, watching for the release.
    await vi.waitFor(() => expect(driver.watches).toBe(1));
    const again = await provider.acquire("k", { owner: "holder", waitMs: 1_000 });
    expect(again.holdCount).toBe(2);
    await again.release();
    await lock.release();
    await (await waiter).release();
    await provider.close();
  });

  it("of a waiter whose turn comes while its predecessor holds the key here waits for that release first", async () => {
    const driver = new CountingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const holder = await provider.acquire("k", { owner: "holder" });
    const first = provider.acquire("k", { owner: "first" });
    const second = provider.acquire("k", { owner: "second" });
    // "first" heads the line and watches for the release.
    await vi.waitFor(() => expect(driver.watches).toBe(1));
    // Each made its own first attempt; first in line, "first" sent no retry while "holder" holds the key here.
    expect([driver.attempts.get("first"), driver.attempts.get("second")]).toEqual([1, 1]);
    await holder.release();
    const firstLock = await first;
    // One retry, on the release: none while "holder" held the key.
    expect(driver.attempts.get("first")).toBe(2);
    // "second" is now first in line (watching) while "first" holds the key in this very provider: no attempt is sent.
    await vi.waitFor(() => expect(driver.watches).toBe(2));
    expect(driver.attempts.get("second")).toBe(1);
    await firstLock.release();
    expect((await second).holdCount).toBe(1);
    expect(driver.attempts.get("second")).toBe(2);
    await provider.close();
  });

  it("of a new owner is skipped when the driver already watches the key (its waiters are queued), not otherwise", async () => {
    const driver = new WatchingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    await (await provider.acquire("quiet")).release();
    expect([driver.firstAttempts, driver.waits]).toEqual([1, 0]);
    driver.watching.add("busy");
    await (await provider.acquire("busy")).release();
    expect([driver.firstAttempts, driver.waits]).toEqual([1, 1]);
    // A known owner may be re-entering, which only an attempt can tell: it still tries first.
    await (await provider.acquire("busy", { owner: "known" })).release();
    expect([driver.firstAttempts, driver.waits]).toEqual([2, 1]);
    await provider.close();
  });
});
