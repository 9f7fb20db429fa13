import { InvalidArgumentError } from "@distlock/core";
import type { RedisValue } from "ioredis";
import { type FencingLock, fencingTokenOf } from "../fencing-token.js";
import { checkCommands, checkKey, checkKeys, isCommandWord } from "./command-checks.js";
import { redisFenceKey } from "./fence-key.js";
import { checkScriptClient, type RedisClient, type RedisCommand, runFenced } from "./fenced-script.js";

/** Where a fenced write keeps the token. */
export interface RedisFenceOptions {
  /**
   * One key that keeps the token for every written key, instead of each key's own `redisFenceKey(key)`. On a cluster it
   * must be in the written keys' slot (give it their hash tag); the server refuses the script (CROSSSLOT) otherwise.
   */
  fenceKey?: string;
}

/** Commands a fenced run writes. */
export interface FencedRunSpec extends RedisFenceOptions {
  /** Every key the commands write; each command names one of them first. On a cluster they share one slot (a hash tag). */
  keys: readonly string[];
  commands: readonly RedisCommand[];
}

/**
 * Runs `commands` in one script if no key has seen a newer holder than `lock`: each key's stored token is at most the
 * lock's fencing token. Stores the token and returns the commands' replies; otherwise changes nothing and throws
 * `FencedOutError` with the stored token.
 */
export function fencedRun(redis: RedisClient, lock: FencingLock, spec: FencedRunSpec): Promise<unknown[]> {
  const token = checkedToken(lock);
  if (typeof spec !== "object" || spec === null) throw new InvalidArgumentError("spec", "must be { keys, commands }");
  const keys = checkKeys(spec.keys, "spec.keys");
  const commands = checkCommands(spec.commands, "spec.commands", keys);
  const fenceKeys = spec.fenceKey === undefined ? keys.map((key, i) => redisFenceKey(key, `spec.keys[${i}]`)) : [checkKey(spec.fenceKey, "spec.fenceKey")];
  checkScriptClient(redis);
  return runFenced(redis, { resource: `redis keys ${keys.map((key) => JSON.stringify(key)).join(", ")}`, token, fenceKeys, keys, commands });
}

/** `SET key value [PX px]`, fenced by `lock`. */
export async function fencedSet(
  redis: RedisClient,
  lock: FencingLock,
  key: string,
  value: RedisValue,
  options: RedisFenceOptions & { px?: number } = {},
): Promise<void> {
  const token = checkedToken(lock);
  checkKey(key, "key");
  if (!isCommandWord(value)) throw new InvalidArgumentError("value", "must be a string, a Buffer or a finite number");
  const { px } = options;
  if (px !== undefined && (!Number.isSafeInteger(px) || px < 1)) throw new InvalidArgumentError("options.px", "must be a whole number of milliseconds ≥ 1");
  const command: RedisCommand = px === undefined ? ["SET", key, value] : ["SET", key, value, "PX", px];
  await runOne(redis, token, key, command, options);
}

/** `HSET key field value …`, fenced by `lock`; how many fields were added (not updated). */
export async function fencedHset(
  redis: RedisClient,
  lock: FencingLock,
  key: string,
  fields: Readonly<Record<string, RedisValue>>,
  options: RedisFenceOptions = {},
): Promise<number> {
  const token = checkedToken(lock);
  checkKey(key, "key");
  if (typeof fields !== "object" || fields === null || Object.keys(fields).length === 0)
    throw new InvalidArgumentError("fields", "must be an object with at least one field");
  const words = Object.entries(fields).flatMap(([field, value]) => {
    if (!isCommandWord(value)) throw new InvalidArgumentError(`fields.${field}`, "must be a string, a Buffer or a finite number");
    return [field, value];
  });
  return Number(await runOne(redis, token, key, ["HSET", key, ...words], options));
}

/** `DEL key`, fenced by `lock`; true if the key existed. The token key stays, so stale holders are still refused. */
export async function fencedDel(redis: RedisClient, lock: FencingLock, key: string, options: RedisFenceOptions = {}): Promise<boolean> {
  const token = checkedToken(lock);
  checkKey(key, "key");
  return Number(await runOne(redis, token, key, ["DEL", key], options)) === 1;
}

async function runOne(redis: RedisClient, token: bigint, key: string, command: RedisCommand, options: RedisFenceOptions): Promise<unknown> {
  const fenceKey = options.fenceKey === undefined ? redisFenceKey(key) : checkKey(options.fenceKey, "options.fenceKey");
  checkScriptClient(redis);
  const [reply] = await runFenced(redis, { resource: `redis key ${JSON.stringify(key)}`, token, fenceKeys: [fenceKey], keys: [key], commands: [command] });
  return reply;
}

/** The lock's token, which the script compares as a decimal string: a negative one would compare wrongly. */
function checkedToken(lock: FencingLock): bigint {
  const token = fencingTokenOf(lock);
  if (token < 0n) throw new InvalidArgumentError("lock.fencingToken", "must be ≥ 0 to fence a Redis key");
  return token;
}
