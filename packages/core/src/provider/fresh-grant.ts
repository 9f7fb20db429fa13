import type { DriverAcquireRequest, DriverGranted } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { stampGrant } from "../driver/stamp-grant.js";
import { monotonicNow } from "../time/monotonic.js";
import { conservativeDeadline } from "./lease-math.js";

/**
 * The one decision every grant passes before it becomes a hold: `granted` as it is (the same object, at once: the common
 * case makes no promise) while its lease, started no earlier than `grantedAt`, has time left by its conservative
 * deadline; else the promise of a confirmation. A grant already past that deadline (its lease started long before the
 * answer came, e.g. during a server election) is renewed before it is handed out, stamped from the renewal; if that
 * fails it is released and undefined, so acquire never returns a lock that cannot be proven. `now`: a clock reading taken
 * after the answer came (a set's grants share one).
 */
export function freshOrConfirmed(
  driver: LockDriver,
  request: DriverAcquireRequest,
  granted: DriverGranted,
  grantedAt: number = granted.grantedAt ?? monotonicNow(),
  now: number = monotonicNow(),
): DriverGranted | Promise<DriverGranted | undefined> {
  if (conservativeDeadline(grantedAt, Math.min(granted.ttlMs, request.ttlMs)) > now) return granted;
  return confirmStale(driver, request, granted);
}

async function confirmStale(driver: LockDriver, request: DriverAcquireRequest, granted: DriverGranted): Promise<DriverGranted | undefined> {
  const renewedAt = monotonicNow();
  const [held] = await driver.renew([{ key: request.key, ownerSecret: request.ownerSecret, ttlMs: request.ttlMs }]).catch(() => [false]);
  if (held === true) return stampGrant(granted, renewedAt, request.ttlMs);
  await driver.release(request.key, request.ownerSecret).catch(() => undefined);
  return undefined;
}
