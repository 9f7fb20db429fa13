import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode, type Permit } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import type { IKeyValue } from "etcd3";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcdWithClient } from "../../test/etcd-with-client.js";
import { untilKeysUnder, untilQueueLength } from "../../test/queue-length.js";
import { EtcdLockProvider } from "../etcd-lock-provider.js";
import { encodeMemberValue } from "../keys/lock-keys.js";
import type { EtcdLockProviderOptions } from "../options/etcd-lock-provider-options.js";
import { linePrefix } from "./semaphore-keys.js";

const SESSION_TTL_MS = 3000;

const { server, raw } = await startEtcdWithClient();

const semaphoreName = (label: string) => `semaphore:${label}:${randomUUID()}`;
/** The line of `name` as a string prefix for etcd3's builders (`\0` is one byte in UTF-8). */
const lineOf = (name: string) => linePrefix("distlock", name).toString();
const membersOf = async (name: string): Promise<IKeyValue[]> => (await raw.getAll().prefix(lineOf(name)).sort("Create", "Ascend").exec()).kvs;
/** The store's revision and its leases: a call that changed no key and granted no lease leaves both as they were. */
const storeState = async () => ({
  revision: (await raw.kv.range({ key: Buffer.from("distlock/") })).header.revision,
  leases: (await raw.leaseClient.leaseLeases({})).leases.map((lease) => lease.ID).sort(),
});

describe("etcd semaphores", () => {
  const providers: EtcdLockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  function provider(options: EtcdLockProviderOptions = {}): EtcdLockProvider {
    const locks = new EtcdLockProvider({ hosts: server.endpoints, sessionTtlMs: SESSION_TTL_MS, ...options });
    providers.push(locks);
    return locks;
  }

  it("keeps each grant and waiter as one member key of the line, holders soonest-expiring first; a refused tryAcquire changes no key and grants no lease, and lock listings leave semaphores out", async () => {
    const name = semaphoreName("layout");
    const locks = provider({ holderLabel: "layout" });
    const semaphore = locks.semaphore(name, { permits: 3 });
    const longer = await semaphore.acquire({ ttlMs: SESSION_TTL_MS * 3, count: 1 });
    const shorter = await semaphore.acquire({ ttlMs: SESSION_TTL_MS, count: 2 });
    const [first, second] = await membersOf(name);
    expect(first?.key.toString()).toMatch(new RegExp(`^${lineOf(name)}[0-9a-f]{64}$`));
    expect(JSON.parse(String(second?.value))).toMatchObject({ holder: shorter.holder, count: 2, permits: 3 });
    expect(BigInt(first?.create_revision as string)).toBe(longer.fencingToken);
    expect(first?.lease).not.toBe(second?.lease);

    const before = await storeState();
    expect(
      await provider()
        .semaphore(name, { permits: 3 })
        .tryAcquire({ ttlMs: SESSION_TTL_MS * 2 }),
    ).toBeNull();
    expect(await semaphore.tryAcquire({ ttlMs: SESSION_TTL_MS })).toBeNull();
    expect(await storeState()).toEqual(before);

    const waiting = provider().semaphore(name, { permits: 3 }).acquire({ ttlMs: SESSION_TTL_MS });
    await untilQueueLength(raw, lineOf(name), 3);
    const state = await semaphore.inspect();
    expect(state).toMatchObject({ permits: 3, inUse: 3, waiters: 1 });
    expect(state?.holders.map((h) => [h.count, h.fencingToken])).toEqual([
      [2, shorter.fencingToken],
      [1, longer.fencingToken],
    ]);
    expect(state?.holders[0]?.holder).toMatch(/:layout$/);
    expect(state?.holders[0]?.ttlRemainingMs).toBeLessThanOrEqual(SESSION_TTL_MS);
    expect(state?.holders[1]?.ttlRemainingMs).toBeGreaterThan(SESSION_TTL_MS);

    const lockKey = `listed:${randomUUID()}`;
    await locks.acquire(lockKey, { ttlMs: SESSION_TTL_MS });
    expect((await locks.list("")).map((lock) => lock.key)).toEqual([lockKey]);

    await shorter.release();
    await (await waiting).release();
    await longer.release();
    expect(await membersOf(name)).toEqual([]);
  });

  it("permits of a holder whose process died free when its lease ends, and the waiter is woken by its watch, not by a recheck", async () => {
    const name = semaphoreName("crashed");
    // What a process that took both permits and then died leaves behind: a member key on a lease nobody keeps alive.
    const lease = await raw.leaseClient.leaseGrant({ TTL: 1 });
    const ghost = { owner: "ghost", holder: "ghost:1", count: 2, permits: 2 };
    await raw.kv.put({ key: Buffer.from(`${lineOf(name)}ghost`), value: encodeMemberValue(ghost), lease: lease.ID });
    const semaphore = provider({ recheckIntervalMs: 60_000 }).semaphore(name, { permits: 2 });
    expect(await semaphore.tryAcquire()).toBeNull();
    expect((await semaphore.inspect())?.holders).toEqual([
      { holder: "ghost:1", count: 2, fencingToken: expect.any(BigInt), ttlRemainingMs: expect.any(Number) },
    ]);
    const started = monotonicNow();
    const permit = await semaphore.acquire({ ttlMs: SESSION_TTL_MS, count: 2, waitMs: 10_000 });
    // etcd expires leases in a loop every 500 ms; the waiter's own recheck would come only after 60 s.
    expect(monotonicNow() - started).toBeLessThan(Number(lease.TTL) * 1000 + 1500);
    expect(permit.count).toBe(2);
  });

  it("one count wins when providers with different permit counts race for an idle semaphore; the others get PERMITS_MISMATCH", async () => {
    const name = semaphoreName("race");
    const counts = [2, 3, 2, 3, 2, 3];
    const outcomes = await Promise.allSettled(counts.map((permits) => provider().semaphore(name, { permits }).tryAcquire({ ttlMs: SESSION_TTL_MS })));
    const stored = new Set((await membersOf(name)).map((kv) => JSON.parse(String(kv.value)).permits as number));
    expect(stored.size).toBe(1);
    const [winner] = stored as Set<number>;
    outcomes.forEach((outcome, i) => {
      if (outcome.status === "rejected") {
        expect(LockError.is(outcome.reason, LockErrorCode.PermitsMismatch)).toBe(true);
        expect(outcome.reason).toMatchObject({ permits: counts[i], storedPermits: winner });
      } else if (outcome.value !== null) {
        expect(counts[i]).toBe(winner);
      }
    });
    expect(outcomes.filter((o) => o.status === "fulfilled" && o.value !== null).length).toBeGreaterThan(0);
  });

  it("a waiter whose key vanished with its lease joins the line again at the back", async () => {
    const name = semaphoreName("rejoin");
    const holder = await provider().semaphore(name, { permits: 1 }).acquire({ ttlMs: SESSION_TTL_MS });
    const order: string[] = [];
    const enter = (label: string, permit: Promise<Permit>) =>
      permit.then(async (granted) => {
        order.push(label);
        await granted.release();
      });
    // Another TTL than the session's: the waiter's key is on a lease of its own.
    const first = enter(
      "first",
      provider()
        .semaphore(name, { permits: 1 })
        .acquire({ ttlMs: SESSION_TTL_MS * 2 }),
    );
    await untilQueueLength(raw, lineOf(name), 2);
    const second = enter("second", provider().semaphore(name, { permits: 1 }).acquire({ ttlMs: SESSION_TTL_MS }));
    await untilQueueLength(raw, lineOf(name), 3);
    const firstKey = (await membersOf(name))[1] as IKeyValue;
    await raw.leaseClient.leaseRevoke({ ID: firstKey.lease });
    await untilKeysUnder(raw, lineOf(name), async () => (await membersOf(name)).at(-1)?.key.equals(firstKey.key) === true);
    await holder.release();
    await Promise.all([first, second]);
    expect(order).toEqual(["second", "first"]);
  });
});
