import type { KvEntry } from "@nats-io/kv";

/**
 * What a held key's bucket entry stores. The entry's revision (the stream sequence of its write) is the record
 * version of the lease scheme: every write of a hold, whether grant, re-entry or renewal, makes a new one.
 */
export interface HoldRecord {
  /** The owner secret; compared by the writer before its conditional write, never shown. */
  readonly secret: string;
  /** Public label of the holder. */
  readonly holder: string;
  /** Re-entry depth. */
  readonly holdCount: number;
  /** Lease length in ms, counted by a reader from when it first saw this revision. */
  readonly leaseMs: number;
  /** The fencing token: the revision of the write that granted the hold. */
  readonly fencingToken: bigint;
}

/** The serialised record, with short field names; `f` is absent on the granting write, whose revision is the token. */
interface WireRecord {
  readonly s: string;
  readonly h: string;
  readonly c: number;
  readonly t: number;
  readonly f?: string;
}

/** The record a fresh grant writes: its token will be the revision this write gets. */
export function grantValue(secret: string, holder: string, leaseMs: number): string {
  const wire: WireRecord = { s: secret, h: holder, c: 1, t: leaseMs };
  return JSON.stringify(wire);
}

/** The record a re-entry or renewal writes over `record`: the same token, carried explicitly. */
export function rewriteValue(record: HoldRecord, changes: Pick<HoldRecord, "holdCount" | "leaseMs">): string {
  const wire: WireRecord = { s: record.secret, h: record.holder, c: changes.holdCount, t: changes.leaseMs, f: String(record.fencingToken) };
  return JSON.stringify(wire);
}

/** The hold an entry shows, or undefined when the key is free (never written, deleted, or not a hold record). */
export function holdOf(entry: KvEntry | null): HoldRecord | undefined {
  if (entry === null || entry.operation !== "PUT") return undefined;
  let wire: Partial<WireRecord>;
  try {
    wire = entry.json<Partial<WireRecord>>();
  } catch {
    return undefined;
  }
  const { s, h, c, t, f } = wire;
  if (typeof s !== "string" || typeof h !== "string" || typeof c !== "number" || typeof t !== "number" || c < 1) return undefined;
  return { secret: s, holder: h, holdCount: c, leaseMs: t, fencingToken: typeof f === "string" ? BigInt(f) : BigInt(entry.revision) };
}
