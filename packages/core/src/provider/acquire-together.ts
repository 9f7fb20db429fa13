import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { ProviderClosedError } from "../errors/provider-closed-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock } from "../types.js";
import { callDriver } from "./driver-calls.js";
import { freshOrConfirmed } from "./fresh-grant.js";
import type { HoldRegistry } from "./hold-registry.js";

/**
 * One all-or-nothing attempt at `requests` (one owner's, in the global key order) with the driver's `tryAcquireAll` (or
 * `attempt`, which answers as it would): their locks, or null when refused. Each grant passes `freshOrConfirmed` as a
 * single one does; a set with one grant that cannot be confirmed, or answered after the caller's signal aborted or the
 * provider closed, is given back whole.
 */
export async function acquireTogether(
  driver: LockDriver,
  holds: HoldRegistry,
  requests: readonly DriverAcquireRequest[],
  settings: AcquireOptions,
  closed: () => boolean,
  attempt: () => Promise<DriverGranted[] | DriverRefused> = () => (driver.tryAcquireAll as NonNullable<LockDriver["tryAcquireAll"]>).call(driver, requests),
): Promise<Lock[] | null> {
  const startedAt = monotonicNow();
  const result = await callDriver(driver.backend, "acquire", attempt);
  if (!Array.isArray(result)) return closed() ? Promise.reject(new ProviderClosedError(driver.backend)) : null;
  const grants: ReadonlyArray<DriverGranted | undefined> = await confirmAll(driver, requests, result, startedAt);
  if (grants.includes(undefined) || closed() || settings.signal?.aborted === true) {
    await giveBack(driver, requests, grants);
    if (closed()) throw new ProviderClosedError(driver.backend);
    settings.signal?.throwIfAborted();
    return null;
  }
  const autoRenew = settings.autoRenew !== false;
  return (grants as DriverGranted[]).map((granted, i) => holds.grant(requests[i] as DriverAcquireRequest, granted, granted.grantedAt ?? startedAt, autoRenew));
}

/**
 * Each grant as `freshOrConfirmed` decides it (undefined where one could not be confirmed). The common case, every grant
 * fresh, is the array itself: no promise per key.
 */
function confirmAll(
  driver: LockDriver,
  requests: readonly DriverAcquireRequest[],
  result: readonly DriverGranted[],
  startedAt: number,
): DriverGranted[] | Promise<Array<DriverGranted | undefined>> {
  const now = monotonicNow();
  const grants = result.map((granted, i) => freshOrConfirmed(driver, requests[i] as DriverAcquireRequest, granted, granted.grantedAt ?? startedAt, now));
  return grants.some((granted, i) => granted !== result[i]) ? Promise.all(grants) : (grants as DriverGranted[]);
}

/** Releases the confirmed grants of a set that is not kept (an unconfirmed one was released by `freshOrConfirmed`). */
async function giveBack(driver: LockDriver, requests: readonly DriverAcquireRequest[], grants: ReadonlyArray<DriverGranted | undefined>): Promise<void> {
  const kept = requests.filter((_, i) => grants[i] !== undefined);
  const [first] = kept;
  if (first === undefined) return;
  const keys = kept.map(({ key }) => key);
  const release = driver.releaseAll?.bind(driver);
  if (release !== undefined) await release(keys, first.ownerSecret).catch(() => undefined);
  else await Promise.allSettled(keys.map((key) => driver.release(key, first.ownerSecret)));
}
