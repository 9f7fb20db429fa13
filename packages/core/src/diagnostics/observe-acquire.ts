import { LockErrorCode } from "../errors/error-codes.js";
import { LockError } from "../errors/lock-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions } from "../types.js";
import { acquireAbortedChannel, acquireErrorChannel, acquireGrantedChannel, acquireStartChannel, acquireTimeoutChannel } from "./lock-channels.js";

let lastCallId = 0;

/** True when someone listens to an acquire channel; without listeners an acquire runs unobserved, at no cost. */
export function acquireObserved(): boolean {
  return (
    acquireStartChannel.hasSubscribers ||
    acquireGrantedChannel.hasSubscribers ||
    acquireTimeoutChannel.hasSubscribers ||
    acquireAbortedChannel.hasSubscribers ||
    acquireErrorChannel.hasSubscribers
  );
}

/** What a granted event reads from a call's result: a lock, or a read-write lock's hold. */
interface ObservedGrant {
  readonly fencingToken: bigint | null;
  readonly holdCount: number;
}

/** Runs one `acquire`/`tryAcquire` call and publishes its start and its outcome. */
export function observeAcquire<T extends ObservedGrant | null>(
  backend: string,
  key: string,
  operation: "acquire" | "tryAcquire",
  options: AcquireOptions | undefined,
  call: () => Promise<T>,
): Promise<T> {
  const startedAt = monotonicNow();
  lastCallId = lastCallId === Number.MAX_SAFE_INTEGER ? 1 : lastCallId + 1;
  const callId = lastCallId;
  // Events are written out field by field: spreading a shared base took V8's slow object-clone route on every call.
  if (acquireStartChannel.hasSubscribers) {
    acquireStartChannel.publish({ backend, key, operation, callId, waitMs: operation === "tryAcquire" ? 0 : options?.waitMs });
  }
  return call().then(
    (lock) => {
      const waitMs = monotonicNow() - startedAt;
      if (lock === null) acquireTimeoutChannel.publish({ backend, key, operation, callId, waitMs });
      else acquireGrantedChannel.publish({ backend, key, operation, callId, waitMs, fencingToken: lock.fencingToken, holdCount: lock.holdCount });
      return lock;
    },
    (error: unknown) => {
      const waitMs = monotonicNow() - startedAt;
      if (LockError.is(error, LockErrorCode.LockTimeout)) acquireTimeoutChannel.publish({ backend, key, operation, callId, waitMs });
      else if (isAbort(error, options)) acquireAbortedChannel.publish({ backend, key, operation, callId, waitMs, reason: error });
      else acquireErrorChannel.publish({ backend, key, operation, callId, waitMs, error });
      throw error;
    },
  );
}

function isAbort(error: unknown, options: AcquireOptions | undefined): boolean {
  return (options?.signal?.aborted === true && error === options.signal.reason) || LockError.is(error, LockErrorCode.ProviderClosed);
}
