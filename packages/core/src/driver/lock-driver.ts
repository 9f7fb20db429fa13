import type { LockCapabilities, LockState } from "../types.js";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, DriverWait } from "./driver-attempt.js";
import type { SemaphoreDriver } from "./semaphore-driver.js";

/** Release notifications of one key, latched between calls so none is missed. */
export interface ReleaseWatch {
  /** Resolves at once if a release was seen since the last call, else on the next one, after `timeoutMs`, or on abort. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Unsubscribes; idempotent. */
  close(): void;
}

/**
 * What a backend implements; `DriverLockProvider` adds validation, owner identity, waiting, the watchdog and lost-lock
 * signals on top. Every method is one atomic server operation, never a read followed by a write.
 *
 * Errors: a method that fails for a reason of the server or the network may throw anything: the provider hands the
 * caller a `BackendUnavailableError` (code `BACKEND_UNAVAILABLE`) with it as `cause`. A `LockError` (e.g.
 * `PermitsMismatchError`) and an `AbortError` reach the caller as they are.
 *
 * Optional members come in groups; a driver implements each group whole or not at all:
 * - native waiting: `acquire`, with `isWatching` and `freshOwners` as refinements of it;
 * - notified polling: `watchReleases`, used only when there is no `acquire` (without either, the provider polls,
 *   sleeping at most `retryAfterMs`);
 * - listing: `list`, exactly when `capabilities.listing`;
 * - multi-key: `tryAcquireAll` with `releaseAll` (without them core takes and releases the keys of `acquireAll` one by one);
 * - set passes: `passAll` with `setPasses`, on top of multi-key;
 * - semaphores: `semaphores`, exactly when `capabilities.semaphore`.
 */
export interface LockDriver {
  /** Backend name reported by the provider, e.g. "redis". */
  readonly backend: string;
  /** What the backend promises beyond the common contract. */
  readonly capabilities: LockCapabilities;
  /**
   * One attempt: take the key if it is free or its lease ran out, or re-enter it if `ownerSecret` holds it. The hold
   * count lives on the server: the provider calls `tryAcquire` again for every re-entry (same secret), which must add
   * one to the count, keep the fencing token, and leave the lease at the larger of what is left and `ttlMs`. A fresh
   * grant draws a fencing token greater than every token the key had before, also across releases and expiries.
   */
  tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused>;
  /**
   * Native waiting (a server-side line, FIFO): resolves with a grant, or rejects with `wait.signal.reason` once it
   * aborts, leaving nothing behind (no place in a line, no hold: a grant that races the abort is released).
   */
  acquire?(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted>;
  /**
   * With `acquire`: true while this driver hears the key's releases (someone here waits on it, or did a moment ago),
   * so the key is contended and its waiters queued: a new owner then skips the attempt that would only be refused and
   * goes straight to `acquire`, which must make its first attempt only once it hears releases.
   */
  isWatching?(key: string): boolean;
  /**
   * True when no owner ever re-enters, as each acquire brings an owner secret of its own (permits): a given owner then
   * skips the refused attempt too (see `isWatching`), as a new one does.
   */
  readonly freshOwners?: boolean;
  /**
   * Subscribes to release notifications of `key`, resolving once subscribed (before the provider's first attempt), so
   * the provider's polling wait wakes on a release instead of sleeping out `retryAfterMs`. Ignored when `acquire` exists.
   */
  watchReleases?(key: string): Promise<ReleaseWatch>;
  /**
   * Extends each lease whose owner still holds the key, to at least `ttlMs` from now; one boolean per renewal, in order
   * (false: not held by that owner). It must never shorten a lease: a shorter `ttlMs` may leave the longer lease as it
   * is, since the provider's local deadline never moves back.
   */
  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]>;
  /**
   * Drops one level of the owner's hold, freeing the key at count 0 (and waking its waiters); `held: false`, changing
   * nothing, when the owner no longer holds the key, e.g. after its lease ran out and another owner took it.
   */
  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }>;
  /**
   * Multi-key: one all-or-nothing attempt at several keys for one owner (`requests` share the owner secret and come in
   * the global key order): every key taken or re-entered as `tryAcquire` would, one grant per request in order; or
   * nothing changed and a refusal. It never waits and never joins a line. Core waits for a refused set key by key.
   */
  tryAcquireAll?(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused>;
  /** Multi-key: `release` of each of `keys` for one owner, together; one outcome per key, in order. */
  releaseAll?(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>>;
  /**
   * Multi-key: moves one owner's holds of a set to another owner in one step, all or none. Each key must still be held by
   * `fromSecret` at hold count 1; each then gets the next fencing token (above every earlier one of the key), a lease of
   * the request's ttl from now, and the request's owner secret and holder: one grant per request, in order. Otherwise
   * nothing changed and a refusal. A grant may reserve the tokens that follow its own (`DriverGranted.reservedTokens`):
   * core then passes the set on again with no driver call, under the same owner secret and on the same leases, each key
   * the next reserved token. Core passes a set that others wait for among this process's own acquirers, at most
   * `setPasses` times in a row (see "Set passes" in core's README).
   */
  passAll?(requests: readonly DriverAcquireRequest[], fromSecret: string): Promise<DriverGranted[] | DriverRefused>;
  /** How many times in a row core may pass a set with `passAll` before the set goes back to the server; 0 or absent: never. */
  readonly setPasses?: number;
  /** The server's view of the key, or null when it is free; never the owner secret. */
  inspect(key: string): Promise<LockState | null>;
  /**
   * The held keys that start with `prefix` (matched literally, never as a pattern), each read as `inspect` reads it.
   * It must return at least the first `limit` in key order (UTF-8 bytes) when there are that many; the provider sorts
   * and cuts the answer. Keys freed meanwhile are left out.
   */
  list?(prefix: string, limit: number): Promise<LockState[]>;
  /** Frees the key whoever holds it; true if a hold was removed. */
  forceRelease(key: string): Promise<boolean>;
  /** Counting semaphores on the same connections. */
  readonly semaphores?: SemaphoreDriver;
  /** Closes the connections the driver created (never a client the caller passed in); idempotent. */
  close(): Promise<void>;
}
