import { randomUUID } from "node:crypto";
import { InvalidArgumentError, type Lock, LockLostError } from "@distlock/core";
import { EtcdLockProvider } from "@distlock/etcd";
import { startEtcd } from "@distlock/test-servers";
import { Etcd3 } from "etcd3";
import { afterAll, describe, expect, it } from "vitest";
import type { FencingLock } from "../fencing-token.js";
import { fencedTxn } from "./fenced-txn.js";
import { optimisticUpdate } from "./optimistic-update.js";
import type { EtcdWrites } from "./txn-plan.js";

const server = await startEtcd();
const locks = new EtcdLockProvider({ hosts: server.endpoints });
const lock: Lock = await locks.acquire(`lock-${randomUUID()}`, { ttlMs: 60_000 });
const real = new Etcd3({ hosts: [...server.endpoints] });
afterAll(async () => {
  await locks.close();
  real.close();
  await server.close();
});

/** The real client, recording every property read: an empty record proves no call was made. */
function recordingClient(): { etcd: Etcd3; used: string[] } {
  const used: string[] = [];
  const etcd = new Proxy(real, {
    get(target, property, receiver) {
      used.push(String(property));
      return Reflect.get(target, property, receiver);
    },
  });
  return { etcd, used };
}

const tokenless: FencingLock = { key: "k", fencingToken: null, signal: new AbortController().signal };
const put = { puts: { k: "v" } };

describe("etcd fenced writes refuse bad input before any server call", () => {
  it.each<[string, string, (etcd: Etcd3) => Promise<unknown>]>([
    ["a lock without a fencing token", "lock.fencingToken", (etcd) => fencedTxn(etcd, tokenless, put)],
    ["no lock", "lock", (etcd) => fencedTxn(etcd, undefined as unknown as Lock, put)],
    ["a prefix with a trailing /", "options.prefix", (etcd) => fencedTxn(etcd, lock, put, { prefix: "app/" })],
    ["an empty prefix", "options.prefix", (etcd) => fencedTxn(etcd, lock, put, { prefix: "" })],
    ["no writes", "writes", (etcd) => fencedTxn(etcd, lock, {})],
    ["writes that are not an object", "writes", (etcd) => fencedTxn(etcd, lock, null as unknown as EtcdWrites)],
    ["puts that are a list", "writes.puts", (etcd) => fencedTxn(etcd, lock, { puts: [["k", "v"]] as unknown as Record<string, string> })],
    ["an empty key to put", "writes.puts", (etcd) => fencedTxn(etcd, lock, { puts: { "": "v" } })],
    ["a value that is not a string", "writes.puts.k", (etcd) => fencedTxn(etcd, lock, { puts: { k: 5 as unknown as string } })],
    ["deletes that are not a list", "writes.deletes", (etcd) => fencedTxn(etcd, lock, { deletes: "k" as unknown as [] })],
    ["an empty key to delete", "writes.deletes[1]", (etcd) => fencedTxn(etcd, lock, { deletes: ["a", ""] })],
    ["a key both put and deleted", "writes.deletes[0]", (etcd) => fencedTxn(etcd, lock, { puts: { k: "v" }, deletes: ["k"] })],
    ["a negative mod revision", "writes.ifModRevision.k", (etcd) => fencedTxn(etcd, lock, { ...put, ifModRevision: { k: -1 } })],
    ["a fractional mod revision", "writes.ifModRevision.k", (etcd) => fencedTxn(etcd, lock, { ...put, ifModRevision: { k: 1.5 } })],
    ["a mod revision that is not a number", "writes.ifModRevision.k", (etcd) => fencedTxn(etcd, lock, { ...put, ifModRevision: { k: "latest" } })],
    ["something other than a client", "etcd", () => fencedTxn({} as Etcd3, lock, put)],
    ["an empty key to update", "key", (etcd) => optimisticUpdate(etcd, "", () => "v")],
    ["no update function", "update", (etcd) => optimisticUpdate(etcd, "k", "v" as unknown as () => string)],
    ["zero attempts", "options.maxAttempts", (etcd) => optimisticUpdate(etcd, "k", () => "v", { maxAttempts: 0 })],
    ["a lock without a token for an update", "lock.fencingToken", (etcd) => optimisticUpdate(etcd, "k", () => "v", { lock: tokenless })],
  ])("%s: InvalidArgumentError naming %s", async (_, field, call) => {
    const { etcd, used } = recordingClient();
    const error = await Promise.resolve()
      .then(() => call(etcd))
      .catch((reason: unknown) => reason);
    expect(error, String(error)).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).field).toBe(field);
    expect(used).toEqual([]);
  });

  it("throws the lock's LockLostError, before any server call, once its signal has fired", async () => {
    const reason = new LockLostError("k", "its lease expired");
    const lost: FencingLock = { key: "k", fencingToken: 7n, signal: AbortSignal.abort(reason) };
    const { etcd, used } = recordingClient();
    await expect(fencedTxn(etcd, lost, put)).rejects.toBe(reason);
    expect(used).toEqual([]);
  });
});
