import { acquireObserved, observeAcquire } from "../diagnostics/observe-acquire.js";
import type { DriverAcquireRequest, DriverAcquireResult, DriverGranted } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { stampGrant } from "../driver/stamp-grant.js";
import { LockTimeoutError } from "../errors/lock-timeout-error.js";
import { ProviderClosedError } from "../errors/provider-closed-error.js";
import { UnsupportedOperationError } from "../errors/unsupported-operation-error.js";
import { DEFAULT_TTL_MS } from "../options/defaults.js";
import { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
import { compareKeys, validateListArguments } from "../options/validate-list.js";
import { holderLabel } from "../owner/holder-label.js";
import { currentOwnerSecret, newOwnerSecret } from "../owner/owner-context.js";
import { ReadWriteLocks } from "../read-write/read-write-locks.js";
import { Semaphores } from "../semaphore/semaphores.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, ListOptions, Lock, LockProvider, LockState, ProviderCapabilities, ReadWriteLock, Semaphore, SemaphoreOptions } from "../types.js";
import { callDriver, driverFailure, settledCall } from "./driver-calls.js";
import { HoldRegistry } from "./hold-registry.js";
import { conservativeDeadline, roundTtl } from "./lease-math.js";
import { LocalWaitQueue } from "./local-wait-queue.js";
import { pollUntilGranted } from "./poll-until-granted.js";
import { unlessAborted } from "./unless-aborted.js";
import { openWait, type WaitScope } from "./wait-scope.js";

/** Options every provider built on a driver accepts. */
export interface DriverLockProviderOptions {
  /** Appended to "host:pid" in the public holder label. */
  holderLabel?: string;
}

/**
 * The common contract over one backend driver: each request validated, given its owner, attempted, waited for and
 * bounded by its signal, `waitMs` and `close()`, until its grant is a hold (kept by `HoldRegistry`).
 */
export class DriverLockProvider implements LockProvider {
  /** The driver's backend name. */
  readonly backend: string;
  /** The driver's capabilities, with `readWriteLock` following `semaphore`. */
  readonly capabilities: ProviderCapabilities;
  readonly #driver: LockDriver;
  readonly #holder: string;
  readonly #holds: HoldRegistry;
  readonly #queue = new LocalWaitQueue();
  readonly #waits = new Set<WaitScope>();
  readonly #semaphores: Semaphores;
  readonly #readWriteLocks: ReadWriteLocks;
  #closed: Promise<void> | undefined;

  /** Wraps `driver`; opens nothing itself (the driver connects when it needs to). */
  constructor(driver: LockDriver, options: DriverLockProviderOptions = {}) {
    this.#driver = driver;
    this.backend = driver.backend;
    this.capabilities = Object.freeze({ ...driver.capabilities, readWriteLock: driver.capabilities.semaphore });
    this.#holder = holderLabel(options.holderLabel);
    this.#holds = new HoldRegistry(driver, this.capabilities);
    // Permits run on this same machinery, over the driver's semaphores seen as a lock driver.
    this.#semaphores = new Semaphores(
      driver,
      (permitDriver) => new DriverLockProvider(permitDriver, { holderLabel: options.holderLabel }),
      () => this.#assertOpen(),
    );
    this.#readWriteLocks = new ReadWriteLocks(this.backend, this.#semaphores, () => this.#assertOpen());
  }

  /** Waits for the key (validated first), then holds it; see `LockProvider.acquire`. */
  acquire(key: string, options?: AcquireOptions): Promise<Lock> {
    if (acquireObserved()) return observeAcquire(this.backend, key, "acquire", options, () => this.#acquire(key, options));
    return this.#acquire(key, options);
  }

  #acquire(key: string, options: AcquireOptions | undefined): Promise<Lock> {
    try {
      validateKey(key);
      const settings = validateAcquireOptions(options);
      const request = this.#request(key, settings);
      // A new owner (or any, where owners never re-enter) cannot be re-entering, so while others here wait for the key it
      // queues behind them instead of barging.
      const fresh = request.freshOwner === true || this.#driver.freshOwners === true;
      const joinsLine = fresh && settings.waitMs !== 0 && (this.#queue.has(key) || this.#driver.isWatching?.(key) === true);
      if (joinsLine || settings.signal !== undefined || settings.waitMs !== undefined) return this.#acquireWithin(request, settings, joinsLine);
      // Nothing can cut this first attempt short (no signal, no time budget), so it needs no wait scope.
      return this.#attemptOnce(request, settings, true) as Promise<Lock>;
    } catch (error) {
      return Promise.reject(error);
    }
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
        const granted = await this.#call("acquire", () => waiter.next(waiting.scope.signal));
        const confirmed = waiting.scope.aborted ? undefined : await this.#confirmFresh(request, granted);
        if (waiting.scope.aborted) {
          if (confirmed !== undefined) await this.#driver.release(request.key, request.ownerSecret).catch(() => undefined);
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
  #waiter(request: DriverAcquireRequest): { next: (signal: AbortSignal) => Promise<DriverGranted>; leaveLine?: () => void } {
    const native = this.#driver.acquire?.bind(this.#driver);
    if (native !== undefined) return { next: (signal) => native(request, { signal }) };
    const ticket = this.#queue.enter(request.key);
    return {
      next: (signal) => pollUntilGranted(this.#driver, request, signal, ticket, (key) => this.#holds.heldHereMs(key)),
      leaveLine: () => ticket.leave(),
    };
  }

  /** One attempt that never waits: the lock, or null; see `LockProvider.tryAcquire`. */
  tryAcquire(key: string, options?: AcquireOptions): Promise<Lock | null> {
    if (acquireObserved()) return observeAcquire(this.backend, key, "tryAcquire", options, () => this.#tryAcquire(key, options));
    return this.#tryAcquire(key, options);
  }

  async #tryAcquire(key: string, options: AcquireOptions | undefined): Promise<Lock | null> {
    validateKey(key);
    const settings = validateAcquireOptions(options);
    const request = this.#request(key, settings);
    if (settings.signal === undefined) return this.#attemptOnce(request, settings, false);
    const waiting = openWait(this.#waits, key, settings.signal, undefined);
    try {
      const fresh = await this.#firstAttempt(request, waiting.scope);
      return fresh === undefined ? null : this.#grant(request, fresh, settings);
    } catch (error) {
      throw waiting.scope.aborted ? waiting.scope.reason : error;
    } finally {
      waiting.dispose();
    }
  }

  /** The server's view of the key, never the owner secret; see `LockProvider.inspect`. */
  async inspect(key: string): Promise<LockState | null> {
    validateKey(key);
    this.#assertOpen();
    return this.#call("inspect", () => this.#driver.inspect(key));
  }

  /** The held keys under a prefix, in key order; see `LockProvider.list`. */
  async list(prefix: string, options?: ListOptions): Promise<LockState[]> {
    const { limit } = validateListArguments(prefix, options);
    this.#assertOpen();
    const list = this.#driver.list?.bind(this.#driver);
    if (!this.capabilities.listing || list === undefined) {
      throw new UnsupportedOperationError(this.backend, "list", "the server cannot name the keys it holds locks on; inspect known keys instead");
    }
    const states = await this.#call("list", () => list(prefix, limit));
    return states.sort((a, b) => compareKeys(a.key, b.key)).slice(0, limit);
  }

  /** Frees the key whoever holds it; see `LockProvider.forceRelease`. */
  async forceRelease(key: string): Promise<boolean> {
    validateKey(key);
    this.#assertOpen();
    const freed = await this.#call("forceRelease", () => this.#driver.forceRelease(key));
    this.#holds.loseAll(key, "it was force-released");
    return freed;
  }

  /** A counting semaphore on the driver's `semaphores`; see `LockProvider.semaphore`. */
  semaphore(name: string, options: SemaphoreOptions): Semaphore {
    return this.#semaphores.open(name, options);
  }

  /** A read-write lock built on the driver's semaphores; see `LockProvider.readWriteLock`. */
  readWriteLock(name: string): ReadWriteLock {
    return this.#readWriteLocks.open(name);
  }

  /** Releases what it holds, stops the watchdog and closes the driver; see `LockProvider.close`. */
  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  /** `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** What the driver is asked for `key`, with checked `settings`; throws if the provider is closed or the signal aborted. */
  #request(key: string, settings: AcquireOptions): DriverAcquireRequest {
    this.#assertOpen();
    settings.signal?.throwIfAborted();
    const knownOwner = settings.owner ?? currentOwnerSecret();
    return {
      key,
      ownerSecret: knownOwner ?? newOwnerSecret(),
      holder: this.#holder,
      ttlMs: roundTtl(settings.ttlMs ?? DEFAULT_TTL_MS, this.capabilities),
      freshOwner: knownOwner === undefined,
    };
  }

  async #attempt(request: DriverAcquireRequest) {
    const startedAt = monotonicNow();
    const result = await this.#call("acquire", () => this.#driver.tryAcquire(request));
    return result.acquired ? stampGrant(result, result.grantedAt ?? startedAt) : result;
  }

  /**
   * One attempt that nothing abandons (no signal, no time budget), in one promise over the driver's: the lock, or when
   * refused the wait (`waitIfRefused`, for acquire) or null. A provider closed while it ran gives the grant back and rejects.
   */
  #attemptOnce(request: DriverAcquireRequest, settings: AcquireOptions, waitIfRefused: boolean): Promise<Lock | null> {
    const startedAt = monotonicNow();
    return settledCall(() => this.#driver.tryAcquire(request)).then(
      (result) => {
        if (this.#closed !== undefined) return this.#closedDuring(request, result);
        if (!result.acquired) return this.#refusedOnce(request, settings, waitIfRefused);
        const grantedAt = result.grantedAt ?? startedAt;
        // The common case takes the answer as it is: no stamped copy of the grant.
        if (this.#isFreshFrom(request, result, grantedAt)) return this.#holds.grant(request, result, grantedAt, settings.autoRenew !== false);
        const granted = stampGrant(result, grantedAt);
        return this.#confirmFresh(request, granted).then((confirmed) =>
          confirmed === undefined ? this.#refusedOnce(request, settings, waitIfRefused) : this.#grant(request, confirmed, settings),
        );
      },
      (error: unknown) => {
        throw driverFailure(this.backend, "acquire", error);
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
    throw new ProviderClosedError(this.backend);
  }

  /** One attempt, abandoned (and undone) if `scope` aborts; its grant confirmed fresh, or undefined when refused. */
  async #firstAttempt(request: DriverAcquireRequest, scope: WaitScope): Promise<DriverGranted | undefined> {
    const result = await unlessAborted(this.#driver, request, this.#attempt(request), scope);
    return result.acquired ? this.#freshUnlessAborted(request, result, scope) : undefined;
  }

  /** `granted` as is while it is provably fresh (the common case, no extra promise), else `#confirmFresh` abandoned if `scope` aborts. */
  #freshUnlessAborted(request: DriverAcquireRequest, granted: DriverGranted, scope: WaitScope): DriverGranted | Promise<DriverGranted | undefined> {
    if (!scope.aborted && this.#isFresh(request, granted)) return granted;
    return unlessAborted(this.#driver, request, this.#confirmFresh(request, granted), scope);
  }

  #isFresh(request: DriverAcquireRequest, granted: DriverGranted): boolean {
    return this.#isFreshFrom(request, granted, granted.grantedAt ?? monotonicNow());
  }

  /** Whether `granted`, whose lease started no earlier than `grantedAt`, still has time left by its conservative deadline. */
  #isFreshFrom(request: DriverAcquireRequest, granted: DriverGranted, grantedAt: number): boolean {
    return conservativeDeadline(grantedAt, Math.min(granted.ttlMs, request.ttlMs)) > monotonicNow();
  }

  /**
   * A grant whose conservative deadline has already passed (its lease started long before the answer
   * came, e.g. during a server election) is renewed before it is handed out; if that fails it is
   * released and treated as not granted, so acquire never returns a lock that cannot be proven.
   */
  async #confirmFresh(request: DriverAcquireRequest, granted: DriverGranted): Promise<DriverGranted | undefined> {
    if (this.#isFresh(request, granted)) return granted;
    const renewedAt = monotonicNow();
    const [held] = await this.#driver.renew([{ key: request.key, ownerSecret: request.ownerSecret, ttlMs: request.ttlMs }]).catch(() => [false]);
    if (held === true) return stampGrant(granted, renewedAt, request.ttlMs);
    await this.#driver.release(request.key, request.ownerSecret).catch(() => undefined);
    return undefined;
  }

  #grant(request: DriverAcquireRequest, granted: DriverGranted, settings: AcquireOptions): Lock {
    return this.#holds.grant(request, granted, granted.grantedAt ?? monotonicNow(), settings.autoRenew !== false);
  }

  #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return callDriver(this.backend, operation, run);
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) throw new ProviderClosedError(this.backend);
  }

  async #shutdown(): Promise<void> {
    for (const scope of [...this.#waits]) scope.abort(new ProviderClosedError(this.backend));
    await this.#semaphores.close();
    this.#readWriteLocks.close();
    await this.#holds.close();
    await this.#driver.close();
  }
}
