import type { DriverAcquireRequest, DriverAcquireResult, DriverGranted, DriverWait } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { stampGrant } from "../driver/stamp-grant.js";
import { LockTimeoutError } from "../errors/lock-timeout-error.js";
import { ProviderClosedError } from "../errors/provider-closed-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock } from "../types.js";
import { callDriver, driverFailure, settledCall } from "./driver-calls.js";
import { freshOrConfirmed } from "./fresh-grant.js";
import type { HoldRegistry } from "./hold-registry.js";
import { pollUntilGranted } from "./poll-until-granted.js";
import { ProcessLines } from "./process-lines.js";
import { unlessAborted } from "./unless-aborted.js";
import { openWait, type WaitScope } from "./wait-scope.js";

/**
 * How a validated request becomes a hold: one attempt, then a wait (the driver's own, or this process's line polling or
 * woken by release notifications) bounded by the caller's signal, `waitMs` and the provider's close; each grant checked
 * fresh (`freshOrConfirmed`) before `HoldRegistry` makes it a lock. An abandoned attempt or wait leaves no grant behind.
 */
export class Acquisition {
  readonly #driver: LockDriver;
  readonly #holds: HoldRegistry;
  readonly #closed: () => boolean;
  readonly #queue = new ProcessLines();
  readonly #waits = new Set<WaitScope>();

  constructor(driver: LockDriver, holds: HoldRegistry, closed: () => boolean) {
    this.#driver = driver;
    this.#holds = holds;
    this.#closed = closed;
  }

  /** Takes the key for `request`, waiting as long as `settings` allow. */
  acquire(request: DriverAcquireRequest, settings: AcquireOptions): Promise<Lock> {
    // A new owner (or any, where owners never re-enter) cannot be re-entering, so while others here wait for the key it
    // queues behind them instead of barging.
    const fresh = request.freshOwner === true || this.#driver.freshOwners === true;
    const joinsLine = fresh && settings.waitMs !== 0 && (this.#queue.has(request.key) || this.#driver.isWatching?.(request.key) === true);
    if (joinsLine || settings.signal !== undefined || settings.waitMs !== undefined) return this.#acquireWithin(request, settings, joinsLine);
    // Nothing can cut this first attempt short (no signal, no time budget), so it needs no wait scope.
    return this.#attemptOnce(request, settings, true) as Promise<Lock>;
  }

  /** `acquire` for a key an attempt was just refused: straight to the wait, whose own first attempt follows. */
  acquireAfterRefusal(request: DriverAcquireRequest, settings: AcquireOptions): Promise<Lock> {
    return settings.waitMs === 0 ? this.acquire(request, settings) : this.#acquireWithin(request, settings, true);
  }

  /** One attempt: the lock, or null when the key is held by another owner. */
  async tryAcquire(request: DriverAcquireRequest, settings: AcquireOptions): Promise<Lock | null> {
    if (settings.signal === undefined) return this.#attemptOnce(request, settings, false);
    const waiting = openWait(this.#waits, request.key, settings.signal, undefined);
    try {
      const fresh = await this.#firstAttempt(request, waiting.scope);
      return fresh === undefined ? null : this.#grant(request, fresh, settings);
    } catch (error) {
      throw waiting.scope.aborted ? waiting.scope.reason : error;
    } finally {
      waiting.dispose();
    }
  }

  /** Ends every wait with `reason` (the provider is closing). */
  abortAll(reason: Error): void {
    for (const scope of [...this.#waits]) scope.abort(reason);
  }

  /** `acquire` bounded by the caller's signal, `waitMs` and `close()`; the first attempt is skipped when `attempted`. */
  async #acquireWithin(request: DriverAcquireRequest, settings: AcquireOptions, attempted: boolean): Promise<Lock> {
    const { key } = request;
    const waiting = openWait(this.#waits, key, settings.signal, settings.waitMs === 0 ? undefined : settings.waitMs);
    let leaveLine: (() => void) | undefined;
    try {
      const fresh = attempted ? undefined : await this.#firstAttempt(request, waiting.scope);
      if (fresh !== undefined) return this.#grant(request, fresh, settings);
      if (settings.waitMs === 0) throw new LockTimeoutError(key, 0);
      const waiter = this.#waiter(request);
      leaveLine = waiter.leaveLine;
      for (;;) {
        // The wait honours the signal itself and cleans up (queue entries, late grants) before it rejects.
        const granted = await callDriver(this.#driver.backend, "acquire", () => waiter.next(waiting.scope));
        const confirmed = waiting.scope.aborted ? undefined : await freshOrConfirmed(this.#driver, request, granted);
        if (waiting.scope.aborted) {
          // Aborted after the driver's last look at the signal: its grant (confirmed or not) goes back before the rejection.
          await this.#driver.release(request.key, request.ownerSecret).catch(() => undefined);
          throw waiting.scope.reason;
        }
        if (confirmed !== undefined) return this.#grant(request, confirmed, settings);
      }
    } catch (error) {
      throw waiting.scope.aborted ? waiting.scope.reason : error;
    } finally {
      leaveLine?.();
      waiting.dispose();
    }
  }

  /**
   * How `request` waits: natively when the driver queues waiters itself, else in this process's line, polling or on
   * release notifications. The place in the line is kept until the grant is a hold here (`leaveLine`), so the next in
   * line sees it held.
   */
  #waiter(request: DriverAcquireRequest): { next: (wait: DriverWait) => Promise<DriverGranted>; leaveLine?: () => void } {
    const native = this.#driver.acquire?.bind(this.#driver);
    // The scope is the driver's wait: its signal is made only if the driver reads it.
    if (native !== undefined) return { next: (wait) => native(request, wait) };
    const ticket = this.#queue.enter(request.key);
    return {
      next: (wait) => pollUntilGranted(this.#driver, request, wait.signal, ticket, (key) => this.#holds.heldHereMs(key)),
      leaveLine: () => ticket.leave(),
    };
  }

  /**
   * One attempt that nothing abandons (no signal, no time budget), in one promise over the driver's: the lock, or when
   * refused the wait (`waitIfRefused`, for acquire) or null. A provider closed while it ran gives the grant back and rejects.
   */
  #attemptOnce(request: DriverAcquireRequest, settings: AcquireOptions, waitIfRefused: boolean): Promise<Lock | null> {
    const startedAt = monotonicNow();
    return settledCall(() => this.#driver.tryAcquire(request)).then(
      (result) => {
        if (this.#closed()) return this.#closedDuring(request, result);
        if (!result.acquired) return this.#refusedOnce(request, settings, waitIfRefused);
        const grantedAt = result.grantedAt ?? startedAt;
        const fresh = freshOrConfirmed(this.#driver, request, result, grantedAt);
        // The common case takes the answer as it is: no stamped copy of the grant.
        if (fresh === result) return this.#holds.grant(request, result, grantedAt, settings.autoRenew !== false);
        return (fresh as Promise<DriverGranted | undefined>).then((confirmed) =>
          confirmed === undefined ? this.#refusedOnce(request, settings, waitIfRefused) : this.#grant(request, confirmed, settings),
        );
      },
      (error: unknown) => {
        throw driverFailure(this.#driver.backend, "acquire", error);
      },
    );
  }

  /** What `#attemptOnce` answers when refused: the wait (acquire) or null (tryAcquire). */
  #refusedOnce(request: DriverAcquireRequest, settings: AcquireOptions, waitIfRefused: boolean): Promise<Lock> | null {
    return waitIfRefused ? this.#acquireWithin(request, settings, true) : null;
  }

  /** An attempt answered after `close()`: its grant is given back and the caller gets PROVIDER_CLOSED. */
  async #closedDuring(request: DriverAcquireRequest, result: DriverAcquireResult): Promise<never> {
    if (result.acquired) await this.#driver.release(request.key, request.ownerSecret).catch(() => undefined);
    throw new ProviderClosedError(this.#driver.backend);
  }

  /** One attempt, abandoned (and undone) if `scope` aborts; its grant confirmed fresh, or undefined when refused. */
  async #firstAttempt(request: DriverAcquireRequest, scope: WaitScope): Promise<DriverGranted | undefined> {
    const startedAt = monotonicNow();
    const attempt = callDriver(this.#driver.backend, "acquire", () => this.#driver.tryAcquire(request)).then((result) =>
      result.acquired ? stampGrant(result, result.grantedAt ?? startedAt) : result,
    );
    const result = await unlessAborted(this.#driver, request, attempt, scope);
    if (!result.acquired) return undefined;
    const fresh = freshOrConfirmed(this.#driver, request, result);
    // `result` as is while it is provably fresh (no extra promise), else its confirmation, abandoned if `scope` aborts.
    return fresh === result && !scope.aborted ? result : unlessAborted(this.#driver, request, Promise.resolve(fresh), scope);
  }

  #grant(request: DriverAcquireRequest, granted: DriverGranted, settings: AcquireOptions): Lock {
    return this.#holds.grant(request, granted, granted.grantedAt ?? monotonicNow(), settings.autoRenew !== false);
  }
}
