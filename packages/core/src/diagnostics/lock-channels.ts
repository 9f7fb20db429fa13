import { channel } from "node:diagnostics_channel";

/**
 * The `node:diagnostics_channel` names core publishes on. Subscribe with `diagnostics_channel.subscribe(name, fn)`;
 * with no subscriber nothing is built or published. No event carries an owner secret.
 */
export const LOCK_CHANNELS = Object.freeze({
  acquireStart: "distlock:acquire:start",
  acquireGranted: "distlock:acquire:granted",
  acquireTimeout: "distlock:acquire:timeout",
  acquireAborted: "distlock:acquire:aborted",
  acquireError: "distlock:acquire:error",
  release: "distlock:release",
  renew: "distlock:renew",
  renewFailure: "distlock:renew:failure",
  lost: "distlock:lost",
} as const);

/** What every event names. */
export interface LockEventBase {
  /** The provider's backend, e.g. "redis", "postgres". */
  readonly backend: string;
  readonly key: string;
}

/** What every event of one `acquire`/`tryAcquire` call names: its start and its one outcome share `callId`. */
export interface AcquireEventBase extends LockEventBase {
  readonly operation: "acquire" | "tryAcquire";
  /** Opaque, unique per call (within one loaded copy of core): matches the outcome to its start, as calls on a key overlap. */
  readonly callId: number;
}

/** `acquire` or `tryAcquire` was called; `waitMs` is the caller's budget (undefined: unbounded; 0 for tryAcquire). */
export interface AcquireStartEvent extends AcquireEventBase {
  readonly waitMs: number | undefined;
}

/** The call got the key after `waitMs` (from the call to the grant). */
export interface AcquireGrantedEvent extends AcquireEventBase {
  readonly waitMs: number;
  readonly fencingToken: bigint | null;
  readonly holdCount: number;
}

/** The call did not get the key: `acquire` ran out of `waitMs`, or `tryAcquire` found the key held. */
export interface AcquireTimeoutEvent extends AcquireEventBase {
  readonly waitMs: number;
}

/** The caller's signal (or `close()`) ended the call. */
export interface AcquireAbortedEvent extends AcquireEventBase {
  readonly waitMs: number;
  readonly reason: unknown;
}

/** The call failed otherwise (bad input, backend unavailable…). */
export interface AcquireErrorEvent extends AcquireEventBase {
  readonly waitMs: number;
  readonly error: unknown;
}

/** A hold ended by its last release, after `holdMs`. */
export interface ReleaseEvent extends LockEventBase {
  readonly holdMs: number;
  readonly fencingToken: bigint | null;
}

/** A lease was extended, by the watchdog or by `lock.renew()`. */
export interface RenewEvent extends LockEventBase {
  readonly fencingToken: bigint | null;
  readonly ttlMs: number;
}

/** A renewal failed: the server could not be asked (retried), or no longer shows the hold (then `lost` follows). */
export interface RenewFailureEvent extends LockEventBase {
  readonly fencingToken: bigint | null;
  readonly error: unknown;
}

/** A hold can no longer be proven after `holdMs`; its `signal` aborted with `reason`. */
export interface LostEvent extends LockEventBase {
  readonly holdMs: number;
  readonly fencingToken: bigint | null;
  readonly reason: string;
}

export const acquireStartChannel = channel(LOCK_CHANNELS.acquireStart);
export const acquireGrantedChannel = channel(LOCK_CHANNELS.acquireGranted);
export const acquireTimeoutChannel = channel(LOCK_CHANNELS.acquireTimeout);
export const acquireAbortedChannel = channel(LOCK_CHANNELS.acquireAborted);
export const acquireErrorChannel = channel(LOCK_CHANNELS.acquireError);
export const releaseChannel = channel(LOCK_CHANNELS.release);
export const renewChannel = channel(LOCK_CHANNELS.renew);
export const renewFailureChannel = channel(LOCK_CHANNELS.renewFailure);
export const lostChannel = channel(LOCK_CHANNELS.lost);
