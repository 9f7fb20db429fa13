import type { DriverAcquireRequest, DriverAcquireResult } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import type { WaitScope } from "./wait-scope.js";

/**
 * Settles like `attempt`, or rejects with the scope's reason as soon as it aborts; a grant
 * that arrives after the abort is released again, so an abandoned call leaves no lock behind.
 */
export function unlessAborted<T extends DriverAcquireResult | undefined>(
  driver: LockDriver,
  request: DriverAcquireRequest,
  attempt: Promise<T>,
  scope: WaitScope,
): Promise<T> {
  const undoLateGrant = () =>
    attempt.then(
      (result) => (result?.acquired ? driver.release(request.key, request.ownerSecret) : undefined),
      () => undefined,
    );
  if (scope.aborted) {
    void undoLateGrant().catch(() => undefined);
    return Promise.reject(scope.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stopListening = scope.onAbort((reason) => {
      reject(reason);
      void undoLateGrant().catch(() => undefined);
    });
    attempt.then(
      (result) => {
        stopListening();
        resolve(result);
      },
      (error: unknown) => {
        stopListening();
        reject(error);
      },
    );
  });
}
