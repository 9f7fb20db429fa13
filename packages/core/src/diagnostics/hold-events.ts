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

export function publishRelease(hold: ObservedHold): void {
  if (releaseChannel.hasSubscribers) releaseChannel.publish({ ...identify(hold), holdMs: monotonicNow() - hold.grantedAt });
}

export function publishLost(hold: ObservedHold, reason: string): void {
  if (lostChannel.hasSubscribers) lostChannel.publish({ ...identify(hold), holdMs: monotonicNow() - hold.grantedAt, reason });
}

export function publishRenew(hold: ObservedHold, ttlMs: number): void {
  if (renewChannel.hasSubscribers) renewChannel.publish({ ...identify(hold), ttlMs });
}

export function publishRenewFailure(hold: ObservedHold, error: unknown): void {
  if (renewFailureChannel.hasSubscribers) renewFailureChannel.publish({ ...identify(hold), error });
}

function identify(hold: ObservedHold) {
  return { backend: hold.backend, key: hold.key, fencingToken: hold.fencingToken };
}
