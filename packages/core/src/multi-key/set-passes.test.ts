import { describe, expect, it } from "vitest";
import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "../provider/driver-lock-provider.js";
import type { MultiLock } from "../types.js";

/** A memory backend (FIFO waiting, set passes) that records its set calls. */
class CountingDriver extends MemoryLockDriver {
  readonly calls: string[] = [];

  override async tryAcquireAll(requests: readonly DriverAcquireRequest[]) {
    this.calls.push(`tryAcquireAll ${requests.map(({ key }) => key).join(",")}`);
    return super.tryAcquireAll(requests);
  }

  override async passAll(requests: readonly DriverAcquireRequest[], fromSecret: string) {
    this.calls.push(`passAll ${requests.map(({ key }) => key).join(",")}`);
    return super.passAll(requests, fromSecret);
  }

  override async releaseAll(keys: readonly string[], ownerSecret: string) {
    this.calls.push(`releaseAll ${keys.join(",")}`);
    return super.releaseAll(keys, ownerSecret);
  }
}

const KEYS = ["a", "b", "c"];

const setup = () => {
  const store = new MemoryLockStore();
  const driver = new CountingDriver(store);
  return { store, driver, provider: new DriverLockProvider(driver), other: new DriverLockProvider(new MemoryLockDriver(store)) };
};

/** `provider`'s set of KEYS after waiting for another provider's hold of its first key: a contended set. */
async function contendedSet(setupResult: ReturnType<typeof setup>, provider = setupResult.provider): Promise<MultiLock> {
  const held = await setupResult.other.acquire("a");
  const waiting = provider.acquireAll(KEYS);
  await expect.poll(() => setupResult.store.inspect("a")?.waiters).toBe(1);
  await held.release();
  return waiting;
}

describe("set passes: a contended set passed among this process's acquirers", () => {
  it("passes a set that waited to this process's next acquire of it in the same turn: one passAll, no release between", async () => {
    const context = setup();
    const { driver, store, provider } = context;
    const first = await contendedSet(context);
    await first.release();
    expect(store.inspect("a")?.fencingToken).toBe(first.fencingTokens.get("a"));
    driver.calls.length = 0;
    const second = await provider.acquireAll(KEYS);
    expect(driver.calls).toEqual(["passAll a,b,c"]);
    for (const key of KEYS) {
      expect(second.fencingTokens.get(key) as bigint).toBeGreaterThan(first.fencingTokens.get(key) as bigint);
      expect(store.inspect(key)?.fencingToken).toBe(second.fencingTokens.get(key));
    }
    expect(second.signal.aborted).toBe(false);
    await second.release();
    await expect.poll(() => KEYS.map((key) => store.inspect(key))).toEqual([null, null, null]);
  });

  it("passes again with no driver call while the tokens the first pass reserved last: each key's next token, the same lease", async () => {
    const context = setup();
    const { driver, store, provider } = context;
    await (await contendedSet(context)).release();
    const passed = await provider.acquireAll(KEYS);
    await passed.release();
    driver.calls.length = 0;
    const again = await provider.acquireAll(KEYS);
    expect(driver.calls).toEqual([]);
    for (const key of KEYS) expect(again.fencingTokens.get(key)).toBe((passed.fencingTokens.get(key) as bigint) + 1n);
    expect(again.validUntil).toBe(passed.validUntil);
    // The server still shows the hold the driver passed, whose reserved tokens these are.
    expect(store.inspect("a")?.fencingToken).toBe(passed.fencingTokens.get("a"));
    await again.release();
    await expect.poll(() => KEYS.map((key) => store.inspect(key))).toEqual([null, null, null]);
    const next = await provider.tryAcquireAll(KEYS);
    for (const key of KEYS) expect(next?.fencingTokens.get(key) as bigint).toBeGreaterThan(again.fencingTokens.get(key) as bigint);
    await next?.release();
  });

  it("gives a lingering set back to the server on the next turn when no acquire of it came", async () => {
    const context = setup();
    const { driver, store, other } = context;
    await (await contendedSet(context)).release();
    await expect.poll(() => driver.calls.at(-1)).toBe("releaseAll a,b,c");
    expect(KEYS.map((key) => store.inspect(key))).toEqual([null, null, null]);
    expect(await other.tryAcquireAll(KEYS)).not.toBeNull();
  });

  it("releases a set that never waited on the server before release() resolves", async () => {
    const { driver, store, provider } = setup();
    await (await provider.acquireAll(KEYS)).release();
    expect(driver.calls).toEqual(["tryAcquireAll a,b,c", "releaseAll a,b,c"]);
    expect(KEYS.map((key) => store.inspect(key))).toEqual([null, null, null]);
  });

  it("passes at most setPasses times in a row, then the set goes to the waiter of another process", async () => {
    const context = setup();
    const { driver, provider, other } = context;
    let set = await contendedSet(context);
    const waiter = other.acquireAll(KEYS);
    await expect.poll(() => context.store.inspect("a")?.waiters).toBe(1);
    let otherGot = false;
    void waiter.then(() => {
      otherGot = true;
    });
    driver.calls.length = 0;
    for (let i = 0; i < driver.setPasses; i++) {
      await set.release();
      set = await provider.acquireAll(KEYS);
      expect(otherGot).toBe(false);
    }
    // The first pass reserved tokens on the server; the others handed them out here.
    expect(driver.calls).toEqual(["passAll a,b,c"]);
    await set.release();
    const theirs = await waiter;
    expect(theirs.keys).toEqual(KEYS);
    await theirs.release();
  });

  it("takes the usual path when the server refuses the pass (the lingering set was lost)", async () => {
    const context = setup();
    const { driver, store, provider, other } = context;
    await (await contendedSet(context)).release();
    await other.forceRelease("b");
    driver.calls.length = 0;
    const set = await provider.acquireAll(KEYS);
    expect(driver.calls).toEqual(["passAll a,b,c", "releaseAll a,b,c", "tryAcquireAll a,b,c"]);
    expect(store.inspect("b")?.fencingToken).toBe(set.fencingTokens.get("b"));
    await set.release();
  });

  it("passes nothing from a lingering set one of whose keys was force-released through this provider", async () => {
    const context = setup();
    const { driver, store, provider } = context;
    await (await contendedSet(context)).release();
    const passed = await provider.acquireAll(KEYS);
    await passed.release();
    await provider.forceRelease("b");
    driver.calls.length = 0;
    const set = await provider.acquireAll(KEYS);
    expect(driver.calls).toEqual(["tryAcquireAll a,b,c"]);
    expect(store.inspect("b")?.fencingToken).toBe(set.fencingTokens.get("b"));
    await set.release();
  });

  it("never passes the set of an explicit owner, which other acquires may bring", async () => {
    const context = setup();
    const { driver, store, provider, other } = context;
    const held = await other.acquire("a");
    const waiting = provider.acquireAll(KEYS, { owner: "an-explicit-owner-secret" });
    await expect.poll(() => store.inspect("a")?.waiters).toBe(1);
    await held.release();
    const set = await waiting;
    driver.calls.length = 0;
    await set.release();
    expect(driver.calls).toEqual(["releaseAll a,b,c"]);
    expect(KEYS.map((key) => store.inspect(key))).toEqual([null, null, null]);
  });

  it("gives a lingering set back before close() resolves", async () => {
    const context = setup();
    const { store, provider } = context;
    await (await contendedSet(context)).release();
    await provider.close();
    expect(KEYS.map((key) => store.inspect(key))).toEqual([null, null, null]);
  });
});
