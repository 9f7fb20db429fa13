import { randomUUID } from "node:crypto";
import type { KvEntry } from "@nats-io/kv";

/**
 * A key's latest write, as a conditional write starts from it: its revision (0: never written) and the write id that
 * write stored in its value ("" for a value without one). Every value this backend writes, delete markers included,
 * carries a fresh write id as `n`, so the id names one write wherever the stream numbers it.
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

/** The version `entry` shows. */
export function versionOf(entry: KvEntry | null): KeyVersion {
  if (entry === null) return NEVER_WRITTEN;
  return { revision: entry.revision, writeId: writeIdOf(entry) };
}

function writeIdOf(entry: KvEntry): string {
  if (entry.length === 0) return "";
  try {
    const { n } = entry.json<{ n?: unknown }>();
    return typeof n === "string" ? n : "";
  } catch {
    return "";
  }
}

/** What a lease is counted on: the write id, which every write of a hold renews (the revision for a value without one). */
export function leaseVersionOf(version: KeyVersion): string | number {
  return version.writeId === "" ? version.revision : version.writeId;
}
