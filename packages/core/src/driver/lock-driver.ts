import type { LockCapabilities, LockState } from "../types.js";
import type { SemaphoreDriver } from "./semaphore-driver.js";

/** One attempt to take or re-enter a key, as a driver receives it (already validated and rounded). */
export interface DriverAcquireRequest {
  /** The key as the caller named it; the driver namespaces it. */
  readonly key: string;
  /** The owner's credential; the server compares it atomically. */
  readonly ownerSecret: string;
  /** Public label stored next to the secret for `inspect`. */
  readonly holder: string;
  /** Lease length, already rounded to the driver's granularity. */
  readonly ttlMs: number;
  /**
   * True when core drew `ownerSecret` for this acquire alone (no `owner` option, no enclosing owner scope): no other
   * acquire, here or in another process, ever brings it, so the hold cannot be re-entered or released from elsewhere.
   */
  readonly freshOwner?: boolean;
}

/** The key was taken (fresh or re-entered). */
export interface DriverGranted {
  readonly acquired: true;
  /** The hold's fencing token (unchanged on re-entry), or null without fencing. */
  readonly fencingToken: bigint | null;
  /** Reentrancy depth after this acquire. */
  readonly holdCount: number;
  /** Lease left on the server after this acquire (re-entry keeps the larger of old and new). */
  readonly ttlMs: number;
  /** `performance.now()` no later than the moment the server started this lease; set by drivers that wait natively. */
  readonly grantedAt?: number;
}

/** The key is held by another owner. */
export interface DriverRefused {
  readonly acquired: false;
  /** Upper bound on how long the current hold can last without renewal; bounds a waiter's sleep. */
  readonly retryAfterMs: number;
}

export type DriverAcquireResult = DriverGranted | DriverRefused;

/** One lease to extend in a batched renewal. */
export interface DriverRenewal {
  readonly key: string;
  readonly ownerSecret: string;
  readonly ttlMs: number;
}

/** Release notifications of one key, latched between calls so none is missed. */
export interface ReleaseWatch {
  /** Resolves at once if a release was seen since the last call, else on the next one, after `timeoutMs`, or on abort. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Unsubscribes; idempotent. */
  close(): void;
}

/** How a driver's own waiting (`LockDriver.acquire`) must end. */
export interface DriverWait {
  /** Aborts with the reason the wait must reject with (the caller's reason, or a `LockTimeoutError`). */
  readonly signal: AbortSignal;
}

/**
 * What a backend implements; `DriverLockProvider` adds validation, owner identity,
 * waiting, the watchdog and lost-lock signals on top. Every method is one atomic server operation.
 */
export interface LockDriver {
  /** Backend name reported by the provider. */
  readonly backend: string;
  /** What the backend promises beyond the common contract. */
  readonly capabilities: LockCapabilities;
  /** One attempt: take the key if free or expired, re-enter it if `ownerSecret` holds it. */
  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult>;
  /** Optional native waiting (server-side queues, FIFO); rejects with `wait.signal.reason` and leaves nothing behind. */
  acquire?(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted>;
  /**
   * Optional, with `acquire`: true while this driver hears the key's releases (someone here waits on it, or did a
   * moment ago), so the key is contended and its waiters queued: a new owner then skips the attempt that would only
   * be refused and goes straight to `acquire`, which must make its first attempt only once it hears releases.
   */
  isWatching?(key: string): boolean;
  /**
   * Optional: true when no owner ever re-enters, as each acquire brings an owner secret of its own (permits): a given
   * owner then skips the refused attempt too (see `isWatching`), as a new one does.
   */
  readonly freshOwners?: boolean;
  /** Optional: subscribes to release notifications of `key`; resolves once subscribed, before the first attempt. */
  watchReleases?(key: string): Promise<ReleaseWatch>;
  /** Extends each lease if its owner still holds it; one boolean per renewal, in order. */
  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]>;
  /** Drops one level of the owner's hold; `held: false` when the owner no longer holds the key. */
  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }>;
  /** The server's view of the key, or null when it is free. */
  inspect(key: string): Promise<LockState | null>;
  /**
   * Optional, with `capabilities.listing`: the held keys that start with `prefix` (matched literally, never as a
   * pattern), each read as `inspect` reads it. It must return at least the first `limit` in key order (UTF-8 bytes)
   * when there are that many; the provider sorts and cuts the answer. Keys freed meanwhile are left out.
   */
  list?(prefix: string, limit: number): Promise<LockState[]>;
  /** Frees the key whoever holds it; true if a hold was removed. */
  forceRelease(key: string): Promise<boolean>;
  /** Counting semaphores on the same connections; present exactly when `capabilities.semaphore` is true. */
  readonly semaphores?: SemaphoreDriver;
  /** Closes the connections the driver created; idempotent. */
  close(): Promise<void>;
}
