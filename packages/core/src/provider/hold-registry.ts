import type { DriverAcquireRequest, DriverGranted, LockDriver } from "../driver/lock-driver.js";
import { monotonicNow } from "../time/monotonic.js";
import { Hold } from "./hold.js";
import { conservativeDeadline } from "./lease-math.js";
import { RenewalScheduler } from "./renewal-scheduler.js";

/** The holds of one provider, the latest of each key, and the watchdog that renews them. */
export class HoldRegistry {
  readonly #holds = new Set<Hold>();
  /**
   * The latest hold of each key. The server grants a key to one owner at a time, so an owner's grant re-enters its
   * hold only if that hold is still the key's latest; an older one was lost when the key went to another owner.
   */
  readonly #holdByKey = new Map<string, Hold>();
  readonly #onHoldEnd = (hold: Hold) => this.#forget(hold);
  readonly #scheduler: RenewalScheduler;

  constructor(driver: LockDriver) {
    this.#scheduler = new RenewalScheduler(driver);
  }

  /** Records a grant as one more open handle: of the owner's hold of the key if it re-entered, else of a new hold. */
  record(request: DriverAcquireRequest, granted: DriverGranted, autoRenew: boolean): Hold {
    const startedAt = granted.grantedAt ?? monotonicNow();
    const validUntil = conservativeDeadline(startedAt, Math.min(granted.ttlMs, request.ttlMs));
    let hold = this.#holdByKey.get(request.key);
    if (hold !== undefined && hold.ownerSecret === request.ownerSecret && hold.active) {
      hold.extend(validUntil, startedAt, request.ttlMs);
      hold.autoRenew ||= autoRenew;
    } else {
      // Fields named one by one: spreading `request` into a new literal cost more than the rest of an in-memory acquire.
      const init = {
        key: request.key,
        ownerSecret: request.ownerSecret,
        ttlMs: request.ttlMs,
        fencingToken: granted.fencingToken,
        autoRenew,
        validUntil,
        startedAt,
      };
      hold = new Hold(init, this.#onHoldEnd);
      this.#holds.add(hold);
      this.#holdByKey.set(request.key, hold);
    }
    this.#scheduler.add(hold);
    hold.openHandles += 1;
    return hold;
  }

  /** How long a hold of `key` here that is not being released still lasts, in ms; undefined when there is none. */
  heldHereMs(key: string): number | undefined {
    const hold = this.#holdByKey.get(key);
    return hold === undefined || hold.releasing || !hold.active ? undefined : hold.validUntil - monotonicNow();
  }

  /** Every hold of `key` here loses, for `reason`. */
  loseAll(key: string, reason: string): void {
    for (const hold of this.#holds) if (hold.key === key) hold.lose(reason);
  }

  /** Stops the watchdog for good and returns the holds still open, for the provider to release. */
  stop(): Hold[] {
    this.#scheduler.stop();
    return [...this.#holds];
  }

  #forget(hold: Hold): void {
    this.#holds.delete(hold);
    if (this.#holdByKey.get(hold.key) === hold) this.#holdByKey.delete(hold.key);
    this.#scheduler.remove(hold);
  }
}
