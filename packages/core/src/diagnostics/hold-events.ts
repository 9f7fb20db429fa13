import { monotonicNow } from "../time/monotonic.js";
import { lostChannel, releaseChannel, renewChannel, renewFailureChannel } from "./lock-channels.js";

/** What the hold events read from a hold. */
export interface ObservedHold {
  readonly backend: string;
  readonly key: string;
  readonly fencingToken: bigint | null;
  /** `performance.now()` when the hold's first lease started. */
  readonly grantedAt: number;
}

// Each event is written out field by field: spreading a shared part took V8's slow object-clone route.

export function publishRelease(hold: ObservedHold): void {
  if (!releaseChannel.hasSubscribers) return;
  releaseChannel.publish({ backend: hold.backend, key: hold.key, fencingToken: hold.fencingToken, holdMs: monotonicNow() - hold.grantedAt });
}

export function publishLost(hold: ObservedHold, reason: string): void {
  if (!lostChannel.hasSubscribers) return;
  lostChannel.publish({ backend: hold.backend, key: hold.key, fencingToken: hold.fencingToken, holdMs: monotonicNow() - hold.grantedAt, reason });
}

export function publishRenew(hold: ObservedHold, ttlMs: number): void {
  if (renewChannel.hasSubscribers) renewChannel.publish({ backend: hold.backend, key: hold.key, fencingToken: hold.fencingToken, ttlMs });
}

export function publishRenewFailure(hold: ObservedHold, error: unknown): void {
  if (renewFailureChannel.hasSubscribers) renewFailureChannel.publish({ backend: hold.backend, key: hold.key, fencingToken: hold.fencingToken, error });
}
