import { publishRenew, publishRenewFailure } from "../diagnostics/hold-events.js";
import type { DriverAcquireRequest, DriverGranted } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { LockLostError } from "../errors/lock-lost-error.js";
import { validateAcquireOptions } from "../options/validate-acquire.js";
import { monotonicNow } from "../time/monotonic.js";
import type { Lock, LockCapabilities } from "../types.js";
import { callDriver, driverFailure, settledCall } from "./driver-calls.js";
import { Hold } from "./hold.js";
import { HoldList } from "./hold-list.js";
import { conservativeDeadline, roundTtl } from "./lease-math.js";
import { type HoldOperations, JOIN_RELEASE, LockHandle, RELEASE_FAILED } from "./lock-handle.js";
import { ReleaseBatch } from "./release-batch.js";
import { NOT_HELD, type ReleaseOutcome } from "./release-outcome.js";
import { RenewalScheduler } from "./renewal-scheduler.js";

/** The holds of one provider, the latest of each key, the watchdog that renews them, and what their lock handles ask. */
export class HoldRegistry implements HoldOperations {
  readonly #driver: LockDriver;
  readonly #capabilities: LockCapabilities;
  readonly #holds = new HoldList();
  /**
   * The latest hold of each key. The server grants a key to one owner at a time, so an owner's grant re-enters its
   * hold only if that hold is still the key's latest; an older one was lost when the key went to another owner.
   * An ended hold stays until the key's next hold replaces it or `#prune` drops it: deleting a key from a map on every
   * release, to add it back on the next acquire, rehashed the map's table every few operations.
   */
  readonly #holdByKey = new Map<string, Hold>();
  readonly #onHoldEnd = (hold: Hold) => this.#forget(hold);
  readonly #scheduler: RenewalScheduler;

  constructor(driver: LockDriver, capabilities: LockCapabilities) {
    this.#driver = driver;
    this.#capabilities = capabilities;
    this.#scheduler = new RenewalScheduler(driver, this.#holds);
  }

  /**
   * A lock handle for a grant whose lease started no earlier than `startedAt`: one more open handle of the owner's hold
   * of the key if it re-entered, else of a new hold.
   */
  grant(request: DriverAcquireRequest, granted: DriverGranted, startedAt: number, autoRenew: boolean): Lock {
    return new LockHandle(this.#record(request, granted, startedAt, autoRenew), request.holder, granted.holdCount, this);
  }

  /**
   * Drops one level of `hold`. The handle lets go locally on its first try even if the server call
   * fails (the watchdog stops and the lease runs out on the server), so a failed release never keeps
   * a key alive; `detached` says an earlier try already let go.
   */
  release(hold: Hold, detached: boolean, handle: LockHandle): Promise<void> {
    if (hold.openHandles <= 1) hold.releasing = true;
    return settledCall(() => this.#driver.release(hold.key, hold.ownerSecret)).then(
      (outcome) => this.#released(hold, detached, handle, outcome),
      (error: unknown) => this.#releaseFailed(hold, detached, handle, error),
    );
  }

  /**
   * Releases `handles` (one owner's, each of its own key) as `release` does each, with one `releaseAll` call where the
   * driver has it (or `send`, given the holds going out together, which answers as `releaseAll` would); settles when all
   * have. A handle whose release was already pending or done keeps that one.
   */
  releaseTogether(handles: readonly LockHandle[], send?: (holds: readonly Hold[]) => Promise<ReleaseOutcome[]>): Promise<PromiseSettledResult<void>[]> {
    const releaseAll = this.#driver.releaseAll?.bind(this.#driver);
    if (releaseAll === undefined || handles.length < 2) return Promise.allSettled(handles.map((handle) => handle.release()));
    const batch = new ReleaseBatch();
    let each = false;
    for (const handle of handles) if (handle[JOIN_RELEASE](batch) !== undefined) each = true;
    const { holds } = batch;
    const [first] = holds;
    if (first === undefined) return Promise.allSettled(handles.map((handle) => handle.release()));
    const done = settledCall(() =>
      send !== undefined
        ? send(holds)
        : releaseAll(
            holds.map(({ key }) => key),
            first.ownerSecret,
          ),
    ).then(
      (outcomes) => batch.settle((hold, detached, handle, i) => this.#released(hold, detached, handle, outcomes[i] ?? NOT_HELD)),
      (error: unknown) => batch.settle((hold, detached, handle) => this.#releaseFailed(hold, detached, handle, error)),
    );
    batch.sent(done);
    // Some handles were released before on their own: each one's outcome is its own release's.
    return each ? Promise.allSettled(handles.map((handle) => handle.release())) : done;
  }

  /** What a release's answer does to `hold` and its `handle`. */
  #released(hold: Hold, detached: boolean, handle: LockHandle, outcome: ReleaseOutcome): void {
    if (!outcome.held) {
      hold.lose("the server no longer shows this owner holding it");
      handle[RELEASE_FAILED]();
      throw hold.lostReason;
    }
    if (!detached) letGo(hold);
    if (outcome.holdCount === 0) hold.finish();
  }

  /** A release that could not be sent or answered: the handle lets go here (the lease runs out) and the call fails. */
  #releaseFailed(hold: Hold, detached: boolean, handle: LockHandle, error: unknown): never {
    if (!detached) letGo(hold);
    handle[RELEASE_FAILED]();
    throw driverFailure(this.#driver.backend, "release", error);
  }

  async renew(hold: Hold, ttlMs: number | undefined): Promise<void> {
    if (ttlMs !== undefined) validateAcquireOptions({ ttlMs });
    if (!hold.active) throw hold.lostReason ?? new LockLostError(hold.key, "it was already released");
    const ttl = roundTtl(ttlMs ?? hold.ttlMs, this.#capabilities);
    const startedAt = monotonicNow();
    const [held] = await callDriver(this.#driver.backend, "renew", () =>
      this.#driver.renew([{ key: hold.key, ownerSecret: hold.ownerSecret, ttlMs: ttl }]),
    ).catch((error: unknown) => {
      publishRenewFailure(hold, error);
      throw error;
    });
    if (held !== true) {
      hold.lose("the server no longer shows this owner holding it");
      publishRenewFailure(hold, hold.lostReason);
      throw hold.lostReason;
    }
    hold.ttlMs = ttl;
    hold.extend(conservativeDeadline(startedAt, ttl), startedAt, ttl);
    publishRenew(hold, ttl);
  }

  /** How long a hold of `key` here that is not being released still lasts, in ms; undefined when there is none. */
  heldHereMs(key: string): number | undefined {
    const hold = this.#holdByKey.get(key);
    return hold === undefined || hold.releasing || !hold.active ? undefined : hold.validUntil - monotonicNow();
  }

  /** Every hold of `key` here loses, for `reason`. */
  loseAll(key: string, reason: string): void {
    for (const hold of this.#holds.snapshot()) if (hold.key === key) hold.lose(reason);
  }

  /** Stops the watchdog for good, releases every open handle on the server (best effort) and loses the holds here. */
  async close(): Promise<void> {
    this.#scheduler.stop();
    const holds = this.#holds.snapshot();
    await Promise.allSettled(
      holds.map(async (hold) => {
        for (let i = 0; i < hold.openHandles; i++) await this.#driver.release(hold.key, hold.ownerSecret);
      }),
    );
    for (const hold of holds) hold.lose("its provider was closed");
  }

  #record(request: DriverAcquireRequest, granted: DriverGranted, startedAt: number, autoRenew: boolean): Hold {
    const validUntil = conservativeDeadline(startedAt, Math.min(granted.ttlMs, request.ttlMs));
    let hold = this.#holdByKey.get(request.key);
    if (hold !== undefined && hold.ownerSecret === request.ownerSecret && hold.active) {
      hold.extend(validUntil, startedAt, request.ttlMs);
      hold.autoRenew ||= autoRenew;
    } else {
      // Fields named one by one: spreading `request` into a new literal cost more than the rest of an in-memory acquire.
      const init = {
        backend: this.#driver.backend,
        key: request.key,
        ownerSecret: request.ownerSecret,
        ttlMs: request.ttlMs,
        fencingToken: granted.fencingToken,
        autoRenew,
        validUntil,
        startedAt,
      };
      hold = this.#add(new Hold(init, this.#onHoldEnd));
    }
    hold.openHandles += 1;
    if (granted.lost !== undefined) hold.follow(granted.lost);
    this.#scheduler.added(hold);
    return hold;
  }

  /**
   * A lock handle for `request` (the owner of `from`) with `fencingToken`, on the lease of `from`: a hold of the same key
   * let go here but still held on the server, passed on with no server call (see `SetPasses`).
   */
  passOn(from: Hold, request: DriverAcquireRequest, fencingToken: bigint, autoRenew: boolean): Lock {
    const init = {
      backend: this.#driver.backend,
      key: request.key,
      ownerSecret: request.ownerSecret,
      ttlMs: request.ttlMs,
      fencingToken,
      autoRenew,
      validUntil: from.validUntil,
      startedAt: monotonicNow(),
      renewAt: from.renewAt,
    };
    const hold = this.#add(new Hold(init, this.#onHoldEnd));
    hold.openHandles = 1;
    this.#scheduler.added(hold);
    return new LockHandle(hold, request.holder, 1, this);
  }

  /** `hold` as the latest of its key. */
  #add(hold: Hold): Hold {
    this.#holds.add(hold);
    this.#holdByKey.set(hold.key, hold);
    return hold;
  }

  #forget(hold: Hold): void {
    this.#holds.remove(hold);
    if (this.#holdByKey.size > 2 * this.#holds.size + PRUNE_SLACK) this.#prune();
  }

  /** Drops the ended holds from `#holdByKey`, so that it stays about as large as the list of live holds. */
  #prune(): void {
    for (const [key, hold] of this.#holdByKey) if (hold.listIndex < 0) this.#holdByKey.delete(key);
  }
}

/** How many ended holds `#holdByKey` may keep beyond twice the live ones before it drops them. */
const PRUNE_SLACK = 64;

/** One handle of `hold` lets go locally; the last one ends the hold here. */
function letGo(hold: Hold): void {
  hold.openHandles -= 1;
  if (hold.openHandles <= 0) hold.finish();
}
