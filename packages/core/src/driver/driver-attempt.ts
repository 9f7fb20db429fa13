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
   * Never for the keys of a multi-key call, whose one secret holds them all.
   */
  readonly freshOwner?: boolean;
}

/** The key was taken (fresh or re-entered). */
export interface DriverGranted {
  /** Discriminates a grant from a refusal. */
  readonly acquired: true;
  /** The hold's fencing token (unchanged on re-entry), or null without fencing. */
  readonly fencingToken: bigint | null;
  /** Reentrancy depth after this acquire. */
  readonly holdCount: number;
  /** Lease left on the server after this acquire (re-entry keeps the larger of old and new). */
  readonly ttlMs: number;
  /** `performance.now()` no later than the moment the server started this lease; set by drivers that wait natively. */
  readonly grantedAt?: number;
  /**
   * How many tokens past `fencingToken` this grant reserved for this process (a `passAll` grant may): the server grants
   * none of them to anyone, and releasing the hold never lowers the key's counter below them. Core hands them out, each
   * the next, to further passes of the set that need no driver call.
   */
  readonly reservedTokens?: number;
  /**
   * Aborts the moment the server side of this hold is gone before its lease ends (e.g. the database session that keeps
   * it closed); core then loses the hold at once, its `signal` aborting with `LOCK_LOST` whose `cause` is this signal's
   * reason. Give the same signal for every re-entry of the hold.
   */
  readonly lost?: AbortSignal;
}

/** The key is held by another owner. */
export interface DriverRefused {
  /** Discriminates a refusal from a grant. */
  readonly acquired: false;
  /** Upper bound on how long the current hold can last without renewal; bounds a waiter's sleep. */
  readonly retryAfterMs: number;
}

/** What one attempt comes to. */
export type DriverAcquireResult = DriverGranted | DriverRefused;

/** One lease to extend in a batched renewal. */
export interface DriverRenewal {
  /** The key as the caller named it. */
  readonly key: string;
  /** The owner whose hold to extend; the server compares it atomically. */
  readonly ownerSecret: string;
  /** The lease to extend it to, rounded to the driver's granularity. */
  readonly ttlMs: number;
}

/**
 * How a driver's own waiting (`LockDriver.acquire`) must end. Core's waits also carry `aborted`, `reason` and `onAbort`,
 * which tell the same without making the signal, which core makes only on its first read (an `AbortSignal` and its
 * listeners cost a hot wait more than the wait itself); `onWaitAbort` uses them where they are.
 */
export interface DriverWait {
  /** Aborts with the reason the wait must reject with (the caller's reason, or a `LockTimeoutError`). */
  readonly signal: AbortSignal;
  /** Whether the wait has ended (as `signal.aborted`). */
  readonly aborted?: boolean;
  /** Why it ended (as `signal.reason`). */
  readonly reason?: unknown;
  /** Calls `listener` once when the wait ends, unless it already has; returns the unsubscribe. */
  onAbort?(listener: (reason: unknown) => void): () => void;
}

/**
 * Calls `listener` once when `wait` ends (at once, before returning, if it already has), without making core's signal;
 * returns the unsubscribe.
 */
export function onWaitAbort(wait: DriverWait, listener: (reason: unknown) => void): () => void {
  if (wait.onAbort === undefined || wait.aborted === undefined) {
    const { signal } = wait;
    if (signal.aborted) {
      listener(signal.reason);
      return () => undefined;
    }
    const onAbort = () => listener(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    return () => signal.removeEventListener("abort", onAbort);
  }
  if (wait.aborted) {
    listener(wait.reason);
    return () => undefined;
  }
  return wait.onAbort(listener);
}
