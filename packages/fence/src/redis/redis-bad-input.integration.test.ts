import { randomUUID } from "node:crypto";
import { InvalidArgumentError, type Lock, LockLostError } from "@distlock/core";
import { RedisLockProvider } from "@distlock/redis";
import { startRedis } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { FencingLock } from "../fencing-token.js";
import { fencedDel, fencedHset, fencedRun, fencedSet } from "./fenced-writes.js";
import { optimisticTransaction } from "./optimistic-transaction.js";

const server = await startRedis();
const locks = new RedisLockProvider({ url: server.url });
const lock: Lock = await locks.acquire(`lock:${randomUUID()}`, { ttlMs: 60_000 });
/** Connects on its first command: still "wait" afterwards proves that nothing was sent. */
const idle = new Redis(server.url, { lazyConnect: true });
afterAll(async () => {
  idle.disconnect();
  await locks.close();
  await server.close();
});

const WRITES = ["evalsha", "eval", "watch", "multi", "exec", "set", "hset", "del"];

async function expectInvalid(field: string, call: () => Promise<unknown>): Promise<void> {
  const before = await server.commandCalls(...WRITES);
  const error = await Promise.resolve()
    .then(call)
    .catch((reason: unknown) => reason);
  expect(error, String(error)).toBeInstanceOf(InvalidArgumentError);
  expect((error as InvalidArgumentError).field).toBe(field);
  expect(idle.status).toBe("wait");
  expect(await server.commandCalls(...WRITES)).toBe(before);
}

const tokenless: FencingLock = { key: "k", fencingToken: null, signal: new AbortController().signal };

describe("redis fenced writes refuse bad input before any server call", () => {
  it.each<[string, string, () => Promise<unknown>]>([
    ["a lock without a fencing token", "lock.fencingToken", () => fencedSet(idle, tokenless, "k", "v")],
    ["no lock", "lock", () => fencedDel(idle, null as unknown as Lock, "k")],
    ["an empty key", "key", () => fencedSet(idle, lock, "", "v")],
    ["a key that is not a string", "key", () => fencedDel(idle, lock, 42 as unknown as string)],
    ["an object value", "value", () => fencedSet(idle, lock, "k", { a: 1 } as unknown as string)],
    ["a px of zero", "options.px", () => fencedSet(idle, lock, "k", "v", { px: 0 })],
    ["a fractional px", "options.px", () => fencedSet(idle, lock, "k", "v", { px: 1.5 })],
    ["an empty fenceKey", "options.fenceKey", () => fencedSet(idle, lock, "k", "v", { fenceKey: "" })],
    ["a key with a stray } and no hash tag", "key", () => fencedSet(idle, lock, "a}b", "v")],
    ["a key with an empty hash tag", "key", () => fencedDel(idle, lock, "x{}y")],
    ["no fields", "fields", () => fencedHset(idle, lock, "k", {})],
    ["a field that is not a value", "fields.price", () => fencedHset(idle, lock, "k", { price: Number.NaN })],
    ["no keys", "spec.keys", () => fencedRun(idle, lock, { keys: [], commands: [["SET", "k", "v"]] })],
    ["an empty key among the keys", "spec.keys[1]", () => fencedRun(idle, lock, { keys: ["k", ""], commands: [["SET", "k", "v"]] })],
    ["commands that are not a list", "spec.commands", () => fencedRun(idle, lock, { keys: ["k"], commands: "SET k v" as unknown as [] })],
    ["a command without its key", "spec.commands[0]", () => fencedRun(idle, lock, { keys: ["k"], commands: [["SET"] as unknown as ["SET", string]] })],
    ["a command name that is not a word", "spec.commands[0][0]", () => fencedRun(idle, lock, { keys: ["k"], commands: [["SET K", "k", "v"]] })],
    [
      "a command on an undeclared key",
      "spec.commands[1][1]",
      () =>
        fencedRun(idle, lock, {
          keys: ["k"],
          commands: [
            ["SET", "k", "v"],
            ["SET", "other", "v"],
          ],
        }),
    ],
    [
      "an argument that is not a word",
      "spec.commands[0][2]",
      () => fencedRun(idle, lock, { keys: ["k"], commands: [["SET", "k", null as unknown as string]] }),
    ],
    ["a run key with a stray }", "spec.keys[0]", () => fencedRun(idle, lock, { keys: ["a}b"], commands: [["SET", "a}b", "v"]] })],
    ["a client with a key prefix", "redis.options.keyPrefix", () => fencedSet(new Redis(server.url, { lazyConnect: true, keyPrefix: "app:" }), lock, "k", "v")],
    ["something other than a client", "redis", () => fencedSet({} as Redis, lock, "k", "v")],
    ["nothing to watch", "spec.watch", () => optimisticTransaction(idle, { watch: [], run: () => null })],
    ["an empty watched key", "spec.watch[0]", () => optimisticTransaction(idle, { watch: [""], run: () => null })],
    ["no run function", "spec.run", () => optimisticTransaction(idle, { watch: ["k"], run: "SET k v" as unknown as () => null })],
    ["zero attempts", "options.maxAttempts", () => optimisticTransaction(idle, { watch: ["k"], run: () => null }, { maxAttempts: 0 })],
    ["a negative delay", "options.baseDelayMs", () => optimisticTransaction(idle, { watch: ["k"], run: () => null }, { baseDelayMs: -1 })],
  ])("%s: InvalidArgumentError naming %s", async (_, field, call) => {
    await expectInvalid(field, call);
  });

  it("throws the lock's LockLostError, before any server call, once its signal has fired", async () => {
    const reason = new LockLostError("k", "its lease expired");
    const lost: FencingLock = { key: "k", fencingToken: 7n, signal: AbortSignal.abort(reason) };
    const before = await server.commandCalls(...WRITES);
    await expect(fencedSet(idle, lost, "k", "v")).rejects.toBe(reason);
    expect(idle.status).toBe("wait");
    expect(await server.commandCalls(...WRITES)).toBe(before);
  });
});
