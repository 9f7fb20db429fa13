import { randomUUID } from "node:crypto";
import { abortByDeadline } from "@distlock/conformance";
import { LockError, LockErrorCode, type QuorumNotReachedError } from "@distlock/core";
import { startRedisGroup, startTcpProxy } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

const TTL_MS = 1_000;

const group = await startRedisGroup(5);
afterAll(() => group.close());

const providers: RedlockLockProvider[] = [];
afterEach(async () => {
  await Promise.all(group.servers.map((server) => server.start()));
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

/** A provider whose connections to every node are up, so a short per-node bound measures the nodes, not connection setup. */
async function provider(options: Partial<RedlockLockProviderOptions> = {}): Promise<RedlockLockProvider> {
  const created = new RedlockLockProvider({ url: group.url, nodeTimeoutMs: 200, connectTimeoutMs: 500, ...options });
  providers.push(created);
  await expect
    .poll(() =>
      created.inspect("warm-up").then(
        () => true,
        () => false,
      ),
    )
    .toBe(true);
  return created;
}

function killServers(...indexes: number[]): Promise<void> {
  return Promise.all(indexes.map((i) => group.servers[i]?.kill())).then(() => undefined);
}

function lockKeyOnServer(key: string): string {
  return `{distlock-redlock:${key}}:lock`;
}

describe("redlock with a minority of masters down", () => {
  it("with 2 of 5 masters killed, acquire, renew, re-entry, the watchdog and release still work", async () => {
    await killServers(3, 4);
    const [locks, other] = [await provider(), await provider()];
    const key = `minority:${randomUUID()}`;
    const owner = `owner-${randomUUID()}`;
    const lock = await locks.acquire(key, { ttlMs: TTL_MS, owner });
    await lock.renew();
    const again = await locks.acquire(key, { ttlMs: TTL_MS, owner });
    expect(again.holdCount).toBe(2);
    expect(again.fencingToken).toBe(lock.fencingToken);
    // Time itself: two leases, which only the watchdog's renewals on the 3 live masters keep the lock through.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    expect(lock.signal.aborted).toBe(false);
    expect(await other.tryAcquire(key)).toBeNull();
    await again.release();
    await lock.release();
    expect(await other.inspect(key)).toBeNull();
    const next = await other.tryAcquire(key, { ttlMs: TTL_MS });
    expect(next?.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
  });

  it("a lock held on all 5 masters stays held and exclusive when 2 of them die", async () => {
    const [locks, other] = [await provider(), await provider()];
    const key = `dying:${randomUUID()}`;
    const lock = await locks.acquire(key, { ttlMs: TTL_MS });
    await killServers(0, 1);
    // Time itself: two leases, which only the watchdog's renewals on the 3 surviving masters keep the lock through.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    expect(lock.signal.aborted).toBe(false);
    expect(await other.tryAcquire(key)).toBeNull();
    expect((await other.inspect(key))?.holder).toBe(lock.holder);
    await lock.release();
  });
});

describe("redlock with a majority of masters down", () => {
  it("with 3 of 5 masters killed, acquire fails with QUORUM_NOT_REACHED naming each node's vote, and leaves nothing behind", async () => {
    const locks = await provider();
    await killServers(0, 1, 2);
    const key = `majority-down:${randomUUID()}`;
    const error = await locks.tryAcquire(key, { ttlMs: TTL_MS }).catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.QuorumNotReached), String(error)).toBe(true);
    const outcomes = (error as QuorumNotReachedError).outcomes;
    expect(outcomes.map((o) => o.vote)).toEqual(["error", "error", "error", "for", "for"]);
    expect(outcomes.map((o) => o.node)).toEqual(group.servers.map((server) => `${server.host}:${server.port}`));
    expect(LockError.is(outcomes[0]?.error, LockErrorCode.BackendUnavailable)).toBe(true);
    for (const server of group.servers.slice(3)) expect(await server.command("EXISTS", lockKeyOnServer(key))).toBe(0);
    const waiting = await locks.acquire(key, { ttlMs: TTL_MS, waitMs: 2_000 }).catch((e: unknown) => e);
    expect(LockError.is(waiting, LockErrorCode.QuorumNotReached), String(waiting)).toBe(true);
  });

  it("a held lock's signal aborts with LOCK_LOST no later than its validity deadline when 3 of 5 masters die", async () => {
    const lock = await (await provider()).acquire(`lost:${randomUUID()}`, { ttlMs: TTL_MS });
    await killServers(2, 3, 4);
    expect(await abortByDeadline(lock.signal, lock.validUntil, TTL_MS * 2)).toBe("in time");
    expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
  });

  it("a renew that reaches only 2 of 5 masters is refused with QUORUM_NOT_REACHED, never reported as done", async () => {
    const lock = await (await provider()).acquire(`renew-down:${randomUUID()}`, { ttlMs: TTL_MS * 10, autoRenew: false });
    const before = lock.validUntil;
    await killServers(0, 1, 2);
    const error = await lock.renew().catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.QuorumNotReached), String(error)).toBe(true);
    expect(lock.validUntil).toBe(before);
  });
});

describe("awaitEveryVote", () => {
  it("by default an acquire waits for a stopped minority; with false a majority of fresh grants decides, and the minority takes the hold once it runs again", async () => {
    const [patient, deciding] = [await provider({ nodeTimeoutMs: 30_000 }), await provider({ nodeTimeoutMs: 30_000, awaitEveryVote: false })];
    const stopped = group.servers.slice(3);
    await Promise.all(stopped.map((server) => server.pause()));
    const [patientKey, key] = [`every-vote:${randomUUID()}`, `majority:${randomUUID()}`];
    let patientSettled = false;
    const patientLock = patient.acquire(patientKey, { ttlMs: 600_000 }).finally(() => {
      patientSettled = true;
    });
    const lock = await deciding.acquire(key, { ttlMs: 600_000 });
    expect(patientSettled).toBe(false);
    await Promise.all(stopped.map((server) => server.resume()));
    for (const server of stopped) await expect.poll(() => server.command("EXISTS", lockKeyOnServer(key))).toBe(1);
    expect(await patient.tryAcquire(key)).toBeNull();
    await (await patientLock).release();
    await lock.release();
    for (const server of group.servers) await expect.poll(() => server.command("EXISTS", lockKeyOnServer(key))).toBe(0);
  });

  it("an owner whose calls reach 2 of 5 nodes late while 2 granting nodes drop its copy: by default it is refused once they answer; with false it already holds a lock a rival takes too", async () => {
    const late = await Promise.all(group.servers.slice(3).map((server) => startTcpProxy(server.port)));
    try {
      const url = `redlock://${[...group.servers.slice(0, 3), ...late].map((node) => `${node.host}:${node.port}`).join(",")}`;
      const [patient, deciding, rival] = [
        await provider({ url, nodeTimeoutMs: 30_000 }),
        await provider({ url, nodeTimeoutMs: 30_000, awaitEveryVote: false }),
        await provider(),
      ];
      for (const proxy of late) proxy.blackhole();
      const [patientKey, decidingKey] = [`late-patient:${randomUUID()}`, `late-deciding:${randomUUID()}`];
      let patientSettled = false;
      const patientAttempt = patient.tryAcquire(patientKey, { ttlMs: 600_000 }).finally(() => {
        patientSettled = true;
      });
      const decided = await deciding.tryAcquire(decidingKey, { ttlMs: 600_000 });
      expect(decided).not.toBeNull();
      for (const key of [patientKey, decidingKey]) {
        for (const server of group.servers.slice(0, 3)) await expect.poll(() => server.command("EXISTS", lockKeyOnServer(key))).toBe(1);
        for (const server of group.servers.slice(0, 2)) expect(await server.command("DEL", lockKeyOnServer(key))).toBe(1);
      }
      const [rivalOfPatient, rivalOfDeciding] = [await rival.tryAcquire(patientKey), await rival.tryAcquire(decidingKey)];
      expect(rivalOfDeciding).not.toBeNull();
      expect(decided?.signal.aborted).toBe(false);
      expect(rivalOfPatient).not.toBeNull();
      expect(patientSettled).toBe(false);
      for (const proxy of late) proxy.restore();
      expect(await patientAttempt).toBeNull();
      await expect.poll(() => group.servers[2]?.command("EXISTS", lockKeyOnServer(patientKey))).toBe(0);
      expect((await rival.inspect(patientKey))?.holder).toBe(rivalOfPatient?.holder);
      const renewal = await decided?.renew().catch((e: unknown) => e);
      expect(LockError.is(renewal, LockErrorCode.LockLost), String(renewal)).toBe(true);
      expect(decided?.signal.aborted).toBe(true);
    } finally {
      await Promise.all(late.map((proxy) => proxy.close()));
    }
  });
});

describe("clock drift", () => {
  it("a node whose copy of the lock expires early cannot hand the key to a second owner while a majority still holds it", async () => {
    const [holder, rival] = [await provider(), await provider()];
    const key = `drift:${randomUUID()}`;
    const lock = await holder.acquire(key, { ttlMs: TTL_MS * 10 });
    for (const server of group.servers.slice(0, 2)) expect(await server.command("PEXPIRE", lockKeyOnServer(key), 1)).toBe(1);
    await expect.poll(() => group.servers[1]?.command("EXISTS", lockKeyOnServer(key))).toBe(0);
    expect(await rival.tryAcquire(key)).toBeNull();
    for (const server of group.servers.slice(0, 2)) expect(await server.command("EXISTS", lockKeyOnServer(key))).toBe(0);
    await lock.renew();
    expect(lock.signal.aborted).toBe(false);
    await lock.release();
    expect(await rival.tryAcquire(key)).not.toBeNull();
  });

  // Two workers per provider pass holds within their process cohort (see "Process cohorts" in the README).
  it.each([
    { providers: 4, workers: 1 },
    { providers: 2, workers: 2 },
  ])(
    "contenders ($providers providers × $workers workers) stay mutually exclusive with strictly increasing tokens while 2 of 5 nodes keep expiring keys early",
    async (shape) => {
      const key = `drift-contended:${randomUUID()}`;
      let drifting = true;
      const drift = (async () => {
        while (drifting) {
          await Promise.all(group.servers.slice(0, 2).map((server) => server.command("PEXPIRE", lockKeyOnServer(key), 1)));
          // Time itself: the pace of the drift, a fresh early expiry every few ms.
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      let inside = 0;
      let overlaps = 0;
      const tokens: bigint[] = [];
      try {
        const sides = await Promise.all(Array.from({ length: shape.providers }, () => provider()));
        await Promise.all(
          sides
            .flatMap((locks) => Array.from({ length: shape.workers }, () => locks))
            .map(async (locks) => {
              for (let i = 0; i < 15; i++) {
                const lock = await locks.acquire(key, { ttlMs: TTL_MS * 5 });
                if (inside++ > 0) overlaps += 1;
                tokens.push(lock.fencingToken as bigint);
                // Time itself: the hold lasts a few random ms, as work would, so the drift catches holds at different points.
                await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
                inside -= 1;
                await lock.release();
              }
            }),
        );
      } finally {
        drifting = false;
        await drift;
      }
      expect(overlaps).toBe(0);
      expect(tokens).toHaveLength(60);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i] as bigint).toBeGreaterThan(tokens[i - 1] as bigint);
    },
  );
});

describe("fencing across shifting majorities", () => {
  it("a token taken from one node's high counter is raised on a majority, so a later quorum without that node still issues a larger one", async () => {
    const key = `fence-shift:${randomUUID()}`;
    const high = 5_000_000_000_000_000n;
    expect(await group.servers[0]?.command("SET", `{distlock-redlock:${key}}:fence`, high.toString())).toBe("OK");
    // With 3 and 4 down the only majority is {0, 1, 2}, so node 0's counter is among the granting ones.
    await killServers(3, 4);
    const locks = await provider();
    const first = await locks.acquire(key, { ttlMs: TTL_MS });
    expect(first.fencingToken as bigint).toBeGreaterThan(high);
    expect((await locks.inspect(key))?.fencingToken).toBe(first.fencingToken);
    await first.release();
    await Promise.all([group.servers[3]?.start(), group.servers[4]?.start()]);
    await killServers(0);
    const second = await (await provider()).acquire(key, { ttlMs: TTL_MS });
    expect(second.fencingToken as bigint).toBeGreaterThan(first.fencingToken as bigint);
    await second.release();
    await group.servers[0]?.start();
    await killServers(1, 2);
    const third = await (await provider()).acquire(key, { ttlMs: TTL_MS });
    expect(third.fencingToken as bigint).toBeGreaterThan(second.fencingToken as bigint);
    await third.release();
  });

  it("with fencing: false, tokens are null and the capability says so", async () => {
    const locks = new RedlockLockProvider({ url: group.url, fencing: false });
    providers.push(locks);
    expect(locks.capabilities.fencing).toBe(false);
    const lock = await locks.acquire(`no-fence:${randomUUID()}`, { ttlMs: TTL_MS });
    expect(lock.fencingToken).toBeNull();
    expect((await locks.inspect(lock.key))?.fencingToken).toBeNull();
    await lock.release();
  });
});

describe("redlock list: the quorum view", () => {
  it("lists a key a majority holds and leaves out one that only a minority still holds", async () => {
    const locks = await provider();
    const prefix = `list:${randomUUID()}:`;
    const held = await locks.acquire(`${prefix}majority`, { ttlMs: TTL_MS * 30 });
    await locks.acquire(`${prefix}minority`, { ttlMs: TTL_MS * 30 });
    for (const server of group.servers.slice(0, 3)) expect(await server.command("DEL", lockKeyOnServer(`${prefix}minority`))).toBe(1);
    const states = await (await provider()).list(prefix);
    expect(states).toEqual([expect.objectContaining({ key: `${prefix}majority`, holder: held.holder, fencingToken: held.fencingToken })]);
  });

  it("lists through 2 of 5 masters down, and rejects with QUORUM_NOT_REACHED when 3 are", async () => {
    const locks = await provider();
    const prefix = `list-down:${randomUUID()}:`;
    await locks.acquire(`${prefix}a`, { ttlMs: TTL_MS * 30 });
    await killServers(3, 4);
    expect((await locks.list(prefix)).map((state) => state.key)).toEqual([`${prefix}a`]);
    await killServers(2);
    const error = await locks.list(prefix).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(LockError.is(error, LockErrorCode.QuorumNotReached)).toBe(true);
  });
});
