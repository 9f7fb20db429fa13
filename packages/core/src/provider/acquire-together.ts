import type { DriverAcquireRequest, DriverGranted } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { ProviderClosedError } from "../errors/provider-closed-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock } from "../types.js";
import { callDriver } from "./driver-calls.js";
import { freshOrConfirmed } from "./fresh-grant.js";
import type { HoldRegistry } from "./hold-registry.js";

/**
 * One all-or-nothing attempt at `requests` (one owner's, in the global key order) with the driver's `tryAcquireAll`:
 * their locks, or null when refused. Each grant passes `freshOrConfirmed` as a single one does; a set with one grant that
 * cannot be confirmed, or answered after the caller's signal aborted or the provider closed, is given back whole.
 */
export async function acquireTogether(
  driver: LockDriver,
  holds: HoldRegistry,
  requests: readonly DriverAcquireRequest[],
  settings: AcquireOptions,
  closed: () => boolean,
): Promise<Lock[] | null> {
  const startedAt = monotonicNow();
  const result = await callDriver(driver.backend, "acquire", () => (driver.tryAcquireAll as NonNullable<LockDriver["tryAcquireAll"]>).call(driver, requests));
  if (!Array.isArray(result)) return closed() ? Promise.reject(new ProviderClosedError(driver.backend)) : null;
  const grants = await Promise.all(
    result.map((granted, i) => freshOrConfirmed(driver, requests[i] as DriverAcquireRequest, granted, granted.grantedAt ?? startedAt)),
  );
  const confirmed = grants.filter((granted): granted is DriverGranted => granted !== undefined);
  if (confirmed.length < grants.length || closed() || settings.signal?.aborted === true) {
    await giveBack(driver, requests, grants);
    if (closed()) throw new ProviderClosedError(driver.backend);
    settings.signal?.throwIfAborted();
    return null;
  }
  return confirmed.map((granted, i) => holds.grant(requests[i] as DriverAcquireRequest, granted, granted.grantedAt ?? startedAt, settings.autoRenew !== false));
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
