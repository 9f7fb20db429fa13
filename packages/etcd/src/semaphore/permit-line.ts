import type { DriverPermitRequest } from "@distlock/core/driver";
import type { IKeyValue } from "etcd3";
import { decodeMemberValue, type MemberValue } from "../keys/lock-keys.js";

/** One grant or waiter of a semaphore: a member key in its line. */
export interface LineEntry {
  readonly key: Buffer;
  /** Its place in the line, and the grant's fencing token. */
  readonly createRevision: bigint;
  readonly modRevision: string;
  readonly lease: string;
  readonly value: MemberValue & { readonly permits: number };
}

/** A semaphore's line as read at one store revision, oldest member key first. */
export interface PermitLine {
  readonly entries: readonly LineEntry[];
  readonly revision: bigint;
}

/** The line before anything was read: only an empty line matches it (every key has a create revision above 0). */
export const UNREAD_LINE: PermitLine = Object.freeze({ entries: Object.freeze([]), revision: 0n });

/** The line from a range read sorted by create revision; keys that are not distlock permits are left out. */
export function parseLine(kvs: readonly IKeyValue[], revision: string): PermitLine {
  const entries: LineEntry[] = [];
  for (const kv of kvs) {
    const value = decodeMemberValue(kv.value);
    if (value?.permits === undefined) continue;
    entries.push({
      key: kv.key,
      createRevision: BigInt(kv.create_revision),
      modRevision: kv.mod_revision,
      lease: kv.lease,
      value: { ...value, permits: value.permits },
    });
  }
  return { entries, revision: BigInt(revision) };
}

/** The permit count the line is in use with (every member key carries the same), or undefined when nobody holds or waits. */
export function storedPermits(line: PermitLine): number | undefined {
  return line.entries[0]?.value.permits;
}

/**
 * The holders: the longest run of members from the front whose counts add up to at most the permits. The line is
 * strict FIFO, so a waiter that does not fit blocks everyone behind it, even a smaller request that would fit.
 */
export function holdersOf(line: PermitLine): readonly LineEntry[] {
  const permits = storedPermits(line) ?? 0;
  let inUse = 0;
  for (let i = 0; i < line.entries.length; i++) {
    inUse += (line.entries[i] as LineEntry).value.count;
    if (inUse > permits) return line.entries.slice(0, i);
  }
  return line.entries;
}

/** Whether `request` would hold its permits at once: nobody waits and its count fits beside the holders. */
export function fitsNow(line: PermitLine, request: DriverPermitRequest): boolean {
  let total = request.count;
  for (const entry of line.entries) total += entry.value.count;
  return total <= request.permits;
}

/** The member key `member` created at `createRevision`, if it is still in the line. */
export function findEntry(line: PermitLine, member: Buffer, createRevision?: bigint): LineEntry | undefined {
  return line.entries.find((entry) => entry.key.equals(member) && (createRevision === undefined || entry.createRevision === createRevision));
}
