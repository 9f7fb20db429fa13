import { randomUUID } from "node:crypto";
import { parseStoredHold, storedHold } from "@distlock/redis/internal";
import { startRedisGroup } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { RedlockLockProvider } from "../redlock-lock-provider.js";

const group = await startRedisGroup(3);
const label = "worker 7\nü ßpace 1 2";
const locks = new RedlockLockProvider({ url: group.url, holderLabel: label });
afterAll(async () => {
  await locks.close();
  await group.close();
});

const lockKey = (key: string) => `{distlock-redlock:${key}}:lock`;

describe("a hold stored as one string", () => {
  it("keeps an owner with spaces, digits and multi-byte characters and a label with a newline exact through re-entry, inspect and release", async () => {
    const key = `stored:${randomUUID()}`;
    const owner = "ü 1 2 ";
    const first = await locks.acquire(key, { owner, autoRenew: false });
    const again = await locks.acquire(key, { owner, autoRenew: false });
    expect(again.holdCount).toBe(2);
    expect(again.fencingToken).toBe(first.fencingToken);
    const stored = parseStoredHold(String(await group.servers[0]?.command("GET", lockKey(key))));
    const holder = expect.stringMatching(/:worker 7\nü ßpace 1 2$/);
    expect(stored).toEqual({ ownerSecret: owner, holdCount: 2, token: String(first.fencingToken), label: holder });
    expect(await locks.inspect(key)).toMatchObject({ holder, holdCount: 2, fencingToken: first.fencingToken });
    // A hold whose secret is the owner's plus a digit (the digit could pass for the hold count) is not the owner's.
    for (const server of group.servers) {
      expect(await server.command("SET", lockKey(`${key}:prefix`), storedHold(`${owner}1`, 1, "7", label))).toBe("OK");
    }
    expect(await locks.tryAcquire(`${key}:prefix`, { owner })).toBeNull();
    await again.release();
    expect((await locks.inspect(key))?.holdCount).toBe(1);
    await first.release();
    expect(await locks.inspect(key)).toBeNull();
  });

  it("round-trips in the helpers as Lua counts bytes", () => {
    const value = storedHold("ü 1", 3, "", "a b\nc");
    expect(value.startsWith("4 ü 13  a b")).toBe(true);
    expect(parseStoredHold(value)).toEqual({ ownerSecret: "ü 1", holdCount: 3, token: "", label: "a b\nc" });
    expect(parseStoredHold("not a hold")).toBeUndefined();
  });
});
