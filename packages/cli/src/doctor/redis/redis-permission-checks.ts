import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { CheckList } from "../doctor-report.js";
import { REDIS_CALL_TIMEOUT_MS } from "./redis-node.js";

/** A script like distlock's: reads a key under the prefix and the server clock. */
const PROBE_SCRIPT = 'redis.call("EXISTS", KEYS[1]) return redis.call("TIME")[1]';
const PROBE_SHA = createHash("sha1").update(PROBE_SCRIPT).digest("hex");

/**
 * Runs what distlock runs, as the URL's user, on keys and channels under the prefix: EVAL, EVALSHA, and a message
 * published and received over SUBSCRIBE (waiters are woken that way). An ACL that forbids any of them shows here.
 */
export async function checkRedisPermissions(client: Redis, prefix: string, name: string, checks: CheckList, slots?: SlotRanges): Promise<void> {
  const probeKey = slots === undefined ? `{${prefix}:distlock-doctor}:probe` : await keyServedHere(client, prefix, slots);
  const grant = `ACL SETUSER <user> +eval +evalsha +publish +subscribe +unsubscribe +ping +time +info ~{${prefix}:* &{${prefix}:*`;
  try {
    await client.eval(PROBE_SCRIPT, 1, probeKey);
    await client.evalsha(PROBE_SHA, 1, probeKey);
  } catch (error) {
    checks.add("redis.permissions", "fail", `scripts on ${probeKey}: ${firstLine(error)}`, grant, name);
    return;
  }
  try {
    await roundTripMessage(client, `{${prefix}:distlock-doctor}:probe-${randomUUID()}`);
    checks.ok("redis.permissions", `EVAL, EVALSHA and PUBLISH/SUBSCRIBE work on {${prefix}:…} keys and channels`, name);
  } catch (error) {
    checks.add("redis.permissions", "fail", `pub/sub on {${prefix}:…}: ${firstLine(error)}; waiters would only poll`, grant, name);
  }
}

/** Slot ranges a Cluster master serves, inclusive. */
export type SlotRanges = readonly (readonly [number, number])[];

/** A probe key under the prefix whose slot this master serves (a Cluster master answers MOVED for the others). */
async function keyServedHere(client: Redis, prefix: string, slots: SlotRanges): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const key = `{${prefix}:distlock-doctor-${attempt}}:probe`;
    const slot = Number(await client.call("CLUSTER", "KEYSLOT", key));
    if (slots.some(([from, to]) => slot >= from && slot <= to) || attempt > 100_000) return key;
  }
}

/** Subscribes a second connection to `channel`, publishes on it and waits for the message to arrive. */
async function roundTripMessage(client: Redis, channel: string): Promise<void> {
  const subscriber = client.duplicate({ lazyConnect: true });
  subscriber.on("error", () => undefined);
  try {
    await subscriber.connect();
    const received = new Promise<void>((resolve) => subscriber.on("message", (from: string) => from === channel && resolve()));
    await subscriber.subscribe(channel);
    await client.publish(channel, "ping");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no message within ${REDIS_CALL_TIMEOUT_MS} ms`)), REDIS_CALL_TIMEOUT_MS);
    });
    await Promise.race([received, late]).finally(() => clearTimeout(timer));
  } finally {
    subscriber.disconnect();
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}
