import { type LockRecord, parseLockRecord } from "../src/scripts/lock-record.js";

/** A server a test reads or writes raw (`RedisServer`, a Sentinel set's master or replica). */
interface CommandTarget {
  command(...args: string[]): Promise<unknown>;
}

/** The name of `key`'s lock record under `prefix`. */
export function recordName(key: string, prefix = "distlock"): string {
  return `{${prefix}:${key}}:lock`;
}

/** `key`'s lock record as `server` stores it; undefined when there is none. */
export async function lockRecord(server: CommandTarget, key: string, prefix?: string): Promise<LockRecord | undefined> {
  return parseLockRecord((await server.command("GET", recordName(key, prefix))) as string | null);
}

/** Whether `server` shows `key` free: no record, a free one, or a hold whose deadline passed on its clock. */
export async function shownFree(server: CommandTarget, key: string, prefix?: string): Promise<boolean> {
  const record = await lockRecord(server, key, prefix);
  if (record === undefined || record.free) return true;
  const [seconds, micros] = (await server.command("TIME")) as [string, string];
  return record.deadlineMs <= Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** The ms left of `key`'s hold on `server`'s clock; 0 when it is free. */
export async function leaseLeftMs(server: CommandTarget, key: string, prefix?: string): Promise<number> {
  const record = await lockRecord(server, key, prefix);
  if (record === undefined || record.free) return 0;
  const [seconds, micros] = (await server.command("TIME")) as [string, string];
  return Math.max(0, record.deadlineMs - (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)));
}
