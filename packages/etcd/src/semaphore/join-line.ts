import { PermitsMismatchError } from "@distlock/core";
import type { DriverPermitRequest } from "@distlock/core/driver";
import { encodeMemberValue, type MemberValue, ownerDigest } from "../keys/lock-keys.js";
import { type PermitLine, storedPermits, UNREAD_LINE } from "./permit-line.js";
import { linePrefix, permitKey } from "./semaphore-keys.js";
import type { SemaphoreKeyspace } from "./semaphore-keyspace.js";

/** What one acquire puts in a semaphore's line: its member key and value. */
export interface PermitEntry {
  readonly line: Buffer;
  readonly member: Buffer;
  readonly value: MemberValue;
  readonly encoded: Buffer;
}

/** The member key and value of `request` under `prefix`. */
export function permitEntry(prefix: string, request: DriverPermitRequest): PermitEntry {
  const line = linePrefix(prefix, request.key);
  const value: MemberValue = { owner: ownerDigest(request.ownerSecret), holder: request.holder, count: request.count, permits: request.permits };
  return { line, member: permitKey(line, value.owner), value, encoded: encodeMemberValue(value) };
}

/** How a join decides and how long it keeps trying. */
export interface JoinPolicy {
  /** Whether the key may join the line as read (a line in use with another permit count is refused before this). */
  readonly admits: (line: PermitLine) => boolean;
  /** Txns that may find the line changed before the join gives up. */
  readonly attempts: number;
  /** The lease the key goes on, asked for once the line admits the key. */
  readonly leaseId: () => string | Promise<string>;
  /** The line as last read. @default UNREAD_LINE: the first txn bets on an empty line */
  readonly seen?: PermitLine;
  readonly signal?: AbortSignal;
}

/**
 * Joins the line in one txn that fails if anyone joined since the line was read, so the permit count and `admits` are
 * decided on exactly the line the key lands in; after such a conflict it decides again on the line that txn read.
 * Returns the line just after joining, or undefined when refused or out of attempts; throws `PermitsMismatchError`
 * when the line is in use with another permit count.
 */
export async function joinLine(keyspace: SemaphoreKeyspace, request: DriverPermitRequest, entry: PermitEntry, policy: JoinPolicy) {
  let seen = policy.seen ?? UNREAD_LINE;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    policy.signal?.throwIfAborted();
    const stored = storedPermits(seen);
    if (stored !== undefined && stored !== request.permits) throw new PermitsMismatchError(request.key, request.permits, stored);
    if (!policy.admits(seen)) return undefined;
    const outcome = await keyspace.join(entry.line, seen, entry.member, entry.encoded, await policy.leaseId());
    if (outcome.joined) return outcome.line;
    seen = outcome.line;
  }
  return undefined;
}
