import type { DriverAcquireRequest, DriverAcquireResult, DriverGranted, LockDriver } from "../driver/lock-driver.js";
import { stampGrant } from "../driver/stamp-grant.js";
import { BackendUnavailableError } from "../errors/backend-unavailable-error.js";
import { LockError } from "../errors/lock-error.js";
import { LockLostError } from "../errors/lock-lost-error.js";
import { LockTimeoutError } from "../errors/lock-timeout-error.js";
import { ProviderClosedError } from "../errors/provider-closed-error.js";
import { redactCredentials } from "../errors/redact-credentials.js";
import { DEFAULT_TTL_MS } from "../options/defaults.js";
import { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
import { holderLabel } from "../owner/holder-label.js";
import { currentOwnerSecret, newOwnerSecret } from "../owner/owner-context.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock, LockCapabilities, LockProvider, LockState } from "../types.js";
import type { Hold } from "./hold.js";
import { HoldRegistry } from "./hold-registry.js";
import { conservativeDeadline, roundTtl } from "./lease-math.js";
import { LocalWaitQueue } from "./local-wait-queue.js";
import { type HoldOperations, LockHandle } from "./lock-handle.js";
import { pollUntilGranted } from "./poll-until-granted.js";
import { WaitScope } from "./wait-scope.js";

/** Options every provider built on a driver accepts. */
export interface DriverLockProviderOptions {
  /** Appended to "host:pid" in the public holder label. */
  holderLabel?: string;
}

/** The common contract (validation, owners, waiting, watchdog, lost-lock signals) over one backend driver. */
export class DriverLockProvider implements LockProvider {
  readonly backend: string;
  readonly capabilities: LockCapabilities;
  readonly #driver: LockDriver;
  readonly #holder: string;
  readonly #holds: HoldRegistry;
  readonly #queue = new LocalWaitQueue();
  readonly #waits = new Set<WaitScope>();
  readonly #operations: HoldOperations = { release: (hold, detached) => this.#release(hold, detached), renew: (hold, ttlMs) => this.#renew(hold, ttlMs) };
  #closed: Promise<void> | undefined;

  constructor(driver: LockDriver, options: DriverLockProviderOptions = {}) {
    this.#driver = driver;
    this.backend = driver.backend;
    this.capabilities = Object.freeze({ ...driver.capabilities });
    this.#holder = holderLabel(options.holderLabel);
    this.#holds = new HoldRegistry(driver);
  }

  acquire(key: string, options?: AcquireOptions): Promise<Lock> {
    try {
      const { request, settings, newOwner } = this.#prepare(key, options);
      // A new owner cannot be re-entering, so while others here wait for the key it queues behind them instead of barging.
      const joinsLine = newOwner && settings.waitMs !== 0 && (this.#queue.has(key) || this.#driver.isWatching?.(key) === true);
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
    const waiting = this.#waitSignal(key, settings, settings.waitMs === 0 ? undefined : settings.waitMs);
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

  async tryAcquire(key: string, options?: AcquireOptions): Promise<Lock | null> {
    const { request, settings } = this.#prepare(key, options);
    if (settings.signal === undefined) return this.#attemptOnce(request, settings, false);
    const waiting = this.#waitSignal(key, settings, undefined);
    try {
      const fresh = await this.#firstAttempt(request, waiting.scope);
      return fresh === undefined ? null : this.#grant(request, fresh, settings);
    } catch (error) {
      throw waiting.scope.aborted ? waiting.scope.reason : error;
    } finally {
      waiting.dispose();
    }
  }

  async inspect(key: string): Promise<LockState | null> {
    validateKey(key);
    this.#assertOpen();
    return this.#call("inspect", () => this.#driver.inspect(key));
  }

  async forceRelease(key: string): Promise<boolean> {
    validateKey(key);
    this.#assertOpen();
    const freed = await this.#call("forceRelease", () => this.#driver.forceRelease(key));
    this.#holds.loseAll(key, "it was force-released");
    return freed;
  }

  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #prepare(key: string, options: AcquireOptions | undefined) {
    validateKey(key);
    const settings = validateAcquireOptions(options);
    this.#assertOpen();
    settings.signal?.throwIfAborted();
    const knownOwner = settings.owner ?? currentOwnerSecret();
    const request: DriverAcquireRequest = {
      key,
      ownerSecret: knownOwner ?? newOwnerSecret(),
      holder: this.#holder,
      ttlMs: roundTtl(settings.ttlMs ?? DEFAULT_TTL_MS, this.capabilities),
    };
    return { request, settings, newOwner: knownOwner === undefined };
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
        const granted = stampGrant(result, result.grantedAt ?? startedAt);
        if (this.#isFresh(request, granted)) return this.#grant(request, granted, settings);
        return this.#confirmFresh(request, granted).then((confirmed) =>
          confirmed === undefined ? this.#refusedOnce(request, settings, waitIfRefused) : this.#grant(request, confirmed, settings),
        );
      },
      (error: unknown) => {
        throw this.#failure("acquire", error);
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
    const result = await this.#unlessAborted(request, this.#attempt(request), scope);
    return result.acquired ? this.#freshUnlessAborted(request, result, scope) : undefined;
  }

  /** `granted` as is while it is provably fresh (the common case, no extra promise), else `#confirmFresh` abandoned if `scope` aborts. */
  #freshUnlessAborted(request: DriverAcquireRequest, granted: DriverGranted, scope: WaitScope): DriverGranted | Promise<DriverGranted | undefined> {
    if (!scope.aborted && this.#isFresh(request, granted)) return granted;
    return this.#unlessAborted(request, this.#confirmFresh(request, granted), scope);
  }

  #isFresh(request: DriverAcquireRequest, granted: DriverGranted): boolean {
    return conservativeDeadline(granted.grantedAt ?? monotonicNow(), Math.min(granted.ttlMs, request.ttlMs)) > monotonicNow();
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
    const hold = this.#holds.record(request, granted, settings.autoRenew !== false);
    return new LockHandle(hold, request.holder, granted.holdCount, this.#operations);
  }

  /**
   * Drops one level of `hold`. The handle lets go locally on its first try even if the server call
   * fails (the watchdog stops and the lease runs out on the server), so a failed release never keeps
   * a key alive; `detached` says an earlier try already let go.
   */
  #release(hold: Hold, detached: boolean): Promise<void> {
    if (hold.openHandles <= 1) hold.releasing = true;
    return settledCall(() => this.#driver.release(hold.key, hold.ownerSecret)).then(
      (outcome) => {
        if (!outcome.held) {
          hold.lose("the server no longer shows this owner holding it");
          throw hold.lostReason;
        }
        if (!detached) letGo(hold);
        if (outcome.holdCount === 0) hold.finish();
      },
      (error: unknown) => {
        if (!detached) letGo(hold);
        throw this.#failure("release", error);
      },
    );
  }

  async #renew(hold: Hold, ttlMs: number | undefined): Promise<void> {
    if (ttlMs !== undefined) validateAcquireOptions({ ttlMs });
    if (!hold.active) throw hold.lostReason ?? new LockLostError(hold.key, "it was already released");
    const ttl = roundTtl(ttlMs ?? hold.ttlMs, this.capabilities);
    const startedAt = monotonicNow();
    const [held] = await this.#call("renew", () => this.#driver.renew([{ key: hold.key, ownerSecret: hold.ownerSecret, ttlMs: ttl }]));
    if (held !== true) {
      hold.lose("the server no longer shows this owner holding it");
      throw hold.lostReason;
    }
    hold.ttlMs = ttl;
    hold.extend(conservativeDeadline(startedAt, ttl), startedAt, ttl);
  }

  /** One scope for a caller's wait: their own signal, `close()`, and the `timeoutMs` budget (a `LockTimeoutError`). */
  #waitSignal(key: string, settings: AcquireOptions, timeoutMs: number | undefined) {
    const startedAt = monotonicNow();
    const scope = new WaitScope();
    const onCallerAbort = () => scope.abort(settings.signal?.reason);
    settings.signal?.addEventListener("abort", onCallerAbort, { once: true });
    this.#waits.add(scope);
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => scope.abort(new LockTimeoutError(key, monotonicNow() - startedAt)), timeoutMs);
    return {
      scope,
      dispose: () => {
        clearTimeout(timer);
        settings.signal?.removeEventListener("abort", onCallerAbort);
        this.#waits.delete(scope);
      },
    };
  }

  /**
   * Settles like `attempt`, or rejects with the scope's reason as soon as it aborts; a grant
   * that arrives after the abort is released again, so an abandoned call leaves no lock behind.
   */
  #unlessAborted<T extends DriverAcquireResult | undefined>(request: DriverAcquireRequest, attempt: Promise<T>, scope: WaitScope): Promise<T> {
    const undoLateGrant = () =>
      attempt.then(
        (result) => (result?.acquired ? this.#driver.release(request.key, request.ownerSecret) : undefined),
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

  async #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#failure(operation, error);
    }
  }

  /** A driver's failure as the caller sees it: distlock errors and aborts as they are, anything else BACKEND_UNAVAILABLE. */
  #failure(operation: string, error: unknown): unknown {
    if (LockError.is(error) || (error instanceof Error && error.name === "AbortError")) return error;
    return new BackendUnavailableError(this.backend, `${operation} failed (${describe(error)})`, { cause: error });
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) throw new ProviderClosedError(this.backend);
  }

  async #shutdown(): Promise<void> {
    for (const scope of [...this.#waits]) scope.abort(new ProviderClosedError(this.backend));
    const holds = this.#holds.stop();
    await Promise.allSettled(
      holds.map(async (hold) => {
        for (let i = 0; i < hold.openHandles; i++) await this.#driver.release(hold.key, hold.ownerSecret);
      }),
    );
    for (const hold of holds) hold.lose("its provider was closed");
    await this.#driver.close();
  }
}

/** `call()`, with a synchronous throw turned into a rejection as an async function would. */
function settledCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return call();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One handle of `hold` lets go locally; the last one ends the hold here. */
function letGo(hold: Hold): void {
  hold.openHandles -= 1;
  if (hold.openHandles <= 0) hold.finish();
}

function describe(error: unknown): string {
  return redactCredentials(error instanceof Error ? error.message || error.name : String(error));
}
