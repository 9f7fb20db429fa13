import type { KvEntry } from "@nats-io/kv";
import { lastTokenOf } from "../holds/hold-record.js";

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
  /** A grant's fencing token: `grantToken` of the write that added it. */
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

/** `m` is the highest token the semaphore gave, released grants' included. */
interface WireRecord {
  readonly m: string;
  readonly p: number;
  readonly g: readonly WireEntry[];
  readonly w: readonly WireEntry[];
}

/** The wire record of an entry, or undefined when it holds none. */
function wireOf(entry: KvEntry | null): WireRecord | undefined {
  if (entry === null || entry.operation !== "PUT") return undefined;
  let wire: WireRecord;
  try {
    wire = entry.json<WireRecord>();
  } catch {
    return undefined;
  }
  if (typeof wire?.p !== "number" || !Array.isArray(wire.g) || !Array.isArray(wire.w)) return undefined;
  return wire;
}

/**
 * The record an entry shows (undefined when there is none), every grant with its token: a grant stored without one was
 * added by an older version's write that made this revision, whose token was that revision.
 */
export function semaphoreOf(entry: KvEntry | null): SemaphoreRecord | undefined {
  const wire = wireOf(entry);
  if (wire === undefined || entry === null) return undefined;
  const token = BigInt(entry.revision);
  return { permits: wire.p, grants: wire.g.map((grant) => fromWire(grant, token)), line: wire.w.map((place) => fromWire(place, undefined)) };
}

/** The highest token the semaphore gave, as its latest entry shows it (a delete marker keeps it; 0 when none). */
export function semaphoreTokenOf(entry: KvEntry | null): bigint {
  const wire = wireOf(entry);
  if (wire === undefined) return lastTokenOf(entry);
  const record = semaphoreOf(entry) as SemaphoreRecord;
  return record.grants.reduce((highest, { fencingToken }) => (fencingToken !== undefined && fencingToken > highest ? fencingToken : highest), floorOf(wire));
}

function floorOf(wire: WireRecord): bigint {
  return typeof wire.m === "string" ? BigInt(wire.m) : 0n;
}

/** The serialised record, a grant it adds given `addedToken` (`grantToken`), over a semaphore whose highest token was `lastToken`. */
export function semaphoreValue(record: SemaphoreRecord, lastToken: bigint, addedToken: bigint): WireRecord {
  const adds = record.grants.some((grant) => grant.fencingToken === undefined);
  const grants = record.grants.map((grant) => (grant.fencingToken === undefined ? { ...grant, fencingToken: addedToken } : grant));
  const highest = adds ? addedToken : lastToken;
  return { m: String(highest), p: record.permits, g: grants.map(toWire), w: record.line.map(toWire) };
}

function fromWire(wire: WireEntry, tokenIfMissing: bigint | undefined): PermitEntry {
  const fencingToken = wire.f === undefined ? tokenIfMissing : BigInt(wire.f);
  return { secret: wire.s, holder: wire.h, count: wire.n, leaseMs: wire.t, version: wire.v, ...(fencingToken === undefined ? {} : { fencingToken }) };
}

function toWire(entry: PermitEntry): WireEntry {
  const { secret, holder, count, leaseMs, version, fencingToken } = entry;
  return { s: secret, h: holder, n: count, t: leaseMs, v: version, ...(fencingToken === undefined ? {} : { f: String(fencingToken) }) };
}
