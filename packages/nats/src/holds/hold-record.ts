import type { KvEntry } from "@nats-io/kv";

/**
 * What a held key's bucket entry stores. The entry's write id is the record version of the lease scheme: every write
 * of a hold, whether grant, re-entry or renewal, stores a new one.
 */
export interface HoldRecord {
  /** The owner secret; compared by the writer before its conditional write, never shown. */
  readonly secret: string;
  /** Public label of the holder. */
  readonly holder: string;
  /** Re-entry depth. */
  readonly holdCount: number;
  /** Lease length in ms, counted by a reader from when it first saw this write. */
  readonly leaseMs: number;
  /** The fencing token (`grantToken`). */
  readonly fencingToken: bigint;
}

/** The serialised record, with short field names: `f` the token (absent only in older grants, whose token is their revision). */
interface WireRecord {
  readonly s: string;
  readonly h: string;
  readonly c: number;
  readonly t: number;
  readonly f?: string;
}

/** What a release leaves: a delete marker with the token of the hold it ended. */
interface WireMarker {
  readonly f?: string;
}

/**
 * The token of a grant written over revision `revision` of a key whose token was `previous` (0 for none): above both,
 * so above every earlier token of the key, and written into the grant's record, so every reader sees the token its
 * holder got. It is not the grant's own revision: after the stream's leader is killed, nats-server 2.9.10's replicas
 * can number the same messages differently, and a reader served by another leader would see another number.
 */
export function grantToken(revision: number, previous: bigint): bigint {
  const afterRevision = BigInt(revision) + 1n;
  return afterRevision > previous ? afterRevision : previous + 1n;
}

/** The record a fresh grant writes, with its token. */
export function grantValue(secret: string, holder: string, leaseMs: number, token: bigint): WireRecord {
  return { s: secret, h: holder, c: 1, t: leaseMs, f: String(token) };
}

/** The record a re-entry or renewal writes over `record`: the same token, carried explicitly. */
export function rewriteValue(record: HoldRecord, changes: Pick<HoldRecord, "holdCount" | "leaseMs">): WireRecord {
  return { s: record.secret, h: record.holder, c: changes.holdCount, t: changes.leaseMs, f: String(record.fencingToken) };
}

/** The delete marker's value for a release of the hold with `token`. */
export function markerValue(token: bigint): WireMarker {
  return { f: String(token) };
}

/** The hold an entry shows, or undefined when the key is free (never written, deleted, or not a hold record). */
export function holdOf(entry: KvEntry | null): HoldRecord | undefined {
  if (entry === null || entry.operation !== "PUT") return undefined;
  const wire = parsed<Partial<WireRecord>>(entry);
  if (wire === undefined) return undefined;
  const { s, h, c, t, f } = wire;
  if (typeof s !== "string" || typeof h !== "string" || typeof c !== "number" || typeof t !== "number" || c < 1) return undefined;
  const fencingToken = typeof f === "string" ? BigInt(f) : BigInt(entry.revision);
  return { secret: s, holder: h, holdCount: c, leaseMs: t, fencingToken };
}

/** The key's token as its latest entry shows it: its hold's, or the one a delete marker kept (0 when none). */
export function lastTokenOf(entry: KvEntry | null): bigint {
  const hold = holdOf(entry);
  if (hold !== undefined) return hold.fencingToken;
  if (entry === null) return 0n;
  const f = parsed<Partial<WireMarker>>(entry)?.f;
  return typeof f === "string" ? BigInt(f) : 0n;
}

function parsed<T>(entry: KvEntry): T | undefined {
  if (entry.length === 0) return undefined;
  try {
    return entry.json<T>() ?? undefined;
  } catch {
    return undefined;
  }
}
