import type { KvEntry } from "@nats-io/kv";

/** An entry of a semaphore record: a grant of permits, or a place in its line. */
export interface PermitEntry {
  /** The owner secret of this grant or request (one per acquire). */
  readonly secret: string;
  readonly holder: string;
  /** Permits held, or asked for. */
  readonly count: number;
  /** Lease of the grant, or of the place in line, counted by each reader from when it first saw `version`. */
  readonly leaseMs: number;
  /** A fresh random value on every write of this entry (grant, renewal, a place's refresh): its record version. */
  readonly version: string;
  /** A grant's fencing token: the revision of the write that added it. */
  readonly fencingToken?: bigint;
}

/** A semaphore in use: its permit count, its grants, and its line in arrival order. */
export interface SemaphoreRecord {
  readonly permits: number;
  readonly grants: readonly PermitEntry[];
  readonly line: readonly PermitEntry[];
}

interface WireEntry {
  readonly s: string;
  readonly h: string;
  readonly n: number;
  readonly t: number;
  readonly v: string;
  readonly f?: string;
}

interface WireRecord {
  readonly p: number;
  readonly g: readonly WireEntry[];
  readonly w: readonly WireEntry[];
}

/**
 * The record an entry shows (undefined when there is none), every grant with its token: a grant stored without one was
 * added by the write that made this revision, because every write fills in the tokens of the grants it read.
 */
export function semaphoreOf(entry: KvEntry | null): SemaphoreRecord | undefined {
  if (entry === null || entry.operation !== "PUT") return undefined;
  let wire: WireRecord;
  try {
    wire = entry.json<WireRecord>();
  } catch {
    return undefined;
  }
  if (typeof wire?.p !== "number" || !Array.isArray(wire.g) || !Array.isArray(wire.w)) return undefined;
  const token = BigInt(entry.revision);
  return { permits: wire.p, grants: wire.g.map((grant) => fromWire(grant, token)), line: wire.w.map((place) => fromWire(place, undefined)) };
}

/** The serialised record; grants keep their tokens, a grant added by this write has none yet. */
export function semaphoreValue(record: SemaphoreRecord): string {
  const wire: WireRecord = { p: record.permits, g: record.grants.map(toWire), w: record.line.map(toWire) };
  return JSON.stringify(wire);
}

function fromWire(wire: WireEntry, tokenIfMissing: bigint | undefined): PermitEntry {
  const fencingToken = wire.f === undefined ? tokenIfMissing : BigInt(wire.f);
  return { secret: wire.s, holder: wire.h, count: wire.n, leaseMs: wire.t, version: wire.v, ...(fencingToken === undefined ? {} : { fencingToken }) };
}

function toWire(entry: PermitEntry): WireEntry {
  const { secret, holder, count, leaseMs, version, fencingToken } = entry;
  return { s: secret, h: holder, n: count, t: leaseMs, v: version, ...(fencingToken === undefined ? {} : { f: String(fencingToken) }) };
}
