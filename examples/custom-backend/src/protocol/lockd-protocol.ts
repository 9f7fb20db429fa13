/**
 * lockd's wire protocol: newline-delimited JSON over TCP. A client writes one request per line with an `id`; the server
 * answers each with a reply carrying that id (not necessarily in order: a semaphore wait is answered when granted), and
 * pushes `released` messages to the connections that watch a key. Fencing tokens travel as decimal strings.
 */

/** A lease to extend, in a batched renewal. */
export interface WireRenewal {
  readonly key: string;
  readonly secret: string;
  readonly ttlMs: number;
}

/** Every request, by operation. Keys and semaphore names arrive namespaced by the client's prefix. */
export type LockdRequest =
  | { readonly op: "acquire"; readonly key: string; readonly secret: string; readonly holder: string; readonly ttlMs: number }
  | { readonly op: "renew"; readonly renewals: readonly WireRenewal[] }
  | { readonly op: "release"; readonly key: string; readonly secret: string }
  | { readonly op: "inspect"; readonly key: string }
  | { readonly op: "list"; readonly prefix: string; readonly limit: number }
  | { readonly op: "forceRelease"; readonly key: string }
  | { readonly op: "watch"; readonly key: string }
  | { readonly op: "unwatch"; readonly key: string }
  | { readonly op: "semAcquire"; readonly request: WirePermitRequest }
  | { readonly op: "semWithdraw"; readonly name: string; readonly secret: string }
  | { readonly op: "semRenew"; readonly renewals: readonly WireRenewal[] }
  | { readonly op: "semRelease"; readonly name: string; readonly secret: string }
  | { readonly op: "semInspect"; readonly name: string };

/** A request for permits; with `wait`, the server queues it and answers once it is granted. */
export interface WirePermitRequest {
  readonly name: string;
  readonly secret: string;
  readonly holder: string;
  readonly ttlMs: number;
  readonly permits: number;
  readonly count: number;
  readonly wait: boolean;
}

export interface WireGrant {
  readonly acquired: true;
  readonly token: string;
  readonly holdCount: number;
  /** Lease left on the server's clock right after the grant. */
  readonly ttlMs: number;
}

export interface WireRefusal {
  readonly acquired: false;
  /** Longest the current hold (or the soonest-ending grant) can last without renewal. */
  readonly retryAfterMs: number;
}

export interface WireLockState {
  readonly key: string;
  readonly holder: string;
  readonly holdCount: number;
  readonly token: string;
  readonly ttlRemainingMs: number;
}

export interface WireSemaphoreState {
  readonly name: string;
  readonly permits: number;
  readonly inUse: number;
  readonly holders: readonly { readonly holder: string; readonly count: number; readonly token: string; readonly ttlRemainingMs: number }[];
  readonly waiters: number;
}

/** What each operation answers. */
export interface LockdReplies {
  acquire: WireGrant | WireRefusal;
  renew: boolean[];
  release: { held: boolean; holdCount: number };
  inspect: WireLockState | null;
  list: WireLockState[];
  forceRelease: boolean;
  watch: null;
  unwatch: null;
  semAcquire: WireGrant | WireRefusal;
  semWithdraw: boolean;
  semRenew: boolean[];
  semRelease: boolean;
  semInspect: WireSemaphoreState | null;
}

/** An error the server answers with: `PERMITS_MISMATCH` (with both counts), `WITHDRAWN` (a semaphore wait taken back) or `BAD_REQUEST`. */
export interface WireError {
  readonly code: "PERMITS_MISMATCH" | "WITHDRAWN" | "BAD_REQUEST";
  readonly message: string;
  readonly permits?: number;
  readonly storedPermits?: number;
}

/** One line from the server: a reply to request `id`, or a push. */
export type LockdMessage = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: WireError } | LockdPush;

/** The server tells a watching connection that `key` was released (or force-released). */
export interface LockdPush {
  readonly event: "released";
  readonly key: string;
}
