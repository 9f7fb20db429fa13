import { randomUUID } from "node:crypto";
import type { KvEntry } from "@nats-io/kv";

/**
 * A key's latest write, as a conditional write starts from it: its revision (0: never written) and the write id that
 * write stored in its value ("" for a value without one). Every value this backend writes, delete markers included,
 * carries a fresh write id as `n` and the write id of the write it changed as `b` (`stampedValue`), so the id names one
 * write wherever the stream numbers it.
 */
export interface KeyVersion {
  readonly revision: number;
  readonly writeId: string;
}

/** The version of a key never written. */
export const NEVER_WRITTEN: KeyVersion = Object.freeze({ revision: 0, writeId: "" });

/** A fresh write id (128 random bits). */
export function newWriteId(): string {
  return randomUUID();
}

/** `record` as the value of a write with id `writeId`, changed from `from`. */
export function stampedValue(record: object, writeId: string, from: KeyVersion): string {
  return JSON.stringify({ ...record, n: writeId, b: from.writeId });
}

/** The version `entry` shows. */
export function versionOf(entry: KvEntry | null): KeyVersion {
  if (entry === null) return NEVER_WRITTEN;
  return { revision: entry.revision, writeId: stampOf(entry, "n") };
}

/** The write id of the write `entry` changed ("" when it does not say). */
export function changedFrom(entry: KvEntry | null): string {
  return entry === null ? "" : stampOf(entry, "b");
}

function stampOf(entry: KvEntry, field: "n" | "b"): string {
  if (entry.length === 0) return "";
  try {
    const stamp = entry.json<Record<string, unknown>>()?.[field];
    return typeof stamp === "string" ? stamp : "";
  } catch {
    return "";
  }
}

/** What a lease is counted on: the write id, which every write of a hold renews (the revision for a value without one). */
export function leaseVersionOf(version: KeyVersion): string | number {
  return version.writeId === "" ? version.revision : version.writeId;
}
