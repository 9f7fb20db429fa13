import { acquireObserved, observeAcquire } from "../diagnostics/observe-acquire.js";
import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { ProviderClosedError } from "../errors/provider-closed-error.js";
import { UnsupportedOperationError } from "../errors/unsupported-operation-error.js";
import { acquireInOrder, type MultiKeyPath, tryInOrder } from "../multi-key/multi-key-acquisition.js";
import { SetPasses } from "../multi-key/set-passes.js";
import { DEFAULT_TTL_MS } from "../options/defaults.js";
import { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
import { validateKeys } from "../options/validate-keys.js";
import { compareKeys, validateListArguments } from "../options/validate-list.js";
import { holderLabel } from "../owner/holder-label.js";
import { currentOwnerSecret, newOwnerSecret } from "../owner/owner-context.js";
import { ReadWriteLocks } from "../read-write/read-write-locks.js";
import { Semaphores } from "../semaphore/semaphores.js";
import type {
  AcquireOptions,
  ListOptions,
  Lock,
  LockProvider,
  LockState,
  MultiLock,
  ProviderCapabilities,
  ReadWriteLock,
  Semaphore,
  SemaphoreOptions,
} from "../types.js";
import { acquireTogether } from "./acquire-together.js";
import { Acquisition } from "./acquisition.js";
import { callDriver } from "./driver-calls.js";
import { HoldRegistry } from "./hold-registry.js";
import { roundTtl } from "./lease-math.js";
import type { LockHandle } from "./lock-handle.js";

/** Options every provider built on a driver accepts. */
export interface DriverLockProviderOptions {
  /** Appended to "host:pid" in the public holder label. */
  holderLabel?: string;
}

/**
 * The common contract over one backend driver: each request validated and given its owner, then taken by `Acquisition`
 * (attempted, waited for, bounded by its signal, `waitMs` and `close()`) until its grant is a hold (kept by `HoldRegistry`).
 */
export class DriverLockProvider implements LockProvider {
  /** The driver's backend name. */
  readonly backend: string;
  /** The driver's capabilities, with `readWriteLock` following `semaphore`. */
  readonly capabilities: ProviderCapabilities;
  readonly #driver: LockDriver;
  readonly #holder: string;
  readonly #holds: HoldRegistry;
  readonly #acquisition: Acquisition;
  readonly #semaphores: Semaphores;
  readonly #readWriteLocks: ReadWriteLocks;
  /** Undefined when the driver cannot pass a set (no `passAll`, or `setPasses` 0). */
  readonly #setPasses: SetPasses | undefined;
  #closed: Promise<void> | undefined;

  /** Wraps `driver`; opens nothing itself (the driver connects when it needs to). */
  constructor(driver: LockDriver, options: DriverLockProviderOptions = {}) {
    this.#driver = driver;
    this.backend = driver.backend;
    this.capabilities = Object.freeze({ ...driver.capabilities, readWriteLock: driver.capabilities.semaphore });
    this.#holder = holderLabel(options.holderLabel);
    this.#holds = new HoldRegistry(driver, this.capabilities);
    this.#acquisition = new Acquisition(driver, this.#holds, () => this.#closed !== undefined);
    const maxSetPasses = driver.setPasses ?? 0;
    this.#setPasses =
      driver.passAll !== undefined && driver.releaseAll !== undefined && maxSetPasses > 0 ? new SetPasses(driver, this.#holds, maxSetPasses) : undefined;
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
      return this.#acquisition.acquire(this.#request(key, settings), settings);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** One attempt that never waits: the lock, or null; see `LockProvider.tryAcquire`. */
  tryAcquire(key: string, options?: AcquireOptions): Promise<Lock | null> {
    if (acquireObserved()) return observeAcquire(this.backend, key, "tryAcquire", options, () => this.#tryAcquire(key, options));
    return this.#tryAcquire(key, options);
  }

  async #tryAcquire(key: string, options: AcquireOptions | undefined): Promise<Lock | null> {
    validateKey(key);
    const settings = validateAcquireOptions(options);
    return this.#acquisition.tryAcquire(this.#request(key, settings), settings);
  }

  /** Waits for every key, all or none, in the global key order; see `LockProvider.acquireAll`. */
  async acquireAll(keys: readonly string[], options?: AcquireOptions): Promise<MultiLock> {
    const ordered = validateKeys(keys);
    const settings = validateAcquireOptions(options);
    return acquireInOrder(ordered, settings, this.#multiKeyPath(settings));
  }

  /** One all-or-nothing attempt at every key; see `LockProvider.tryAcquireAll`. */
  async tryAcquireAll(keys: readonly string[], options?: AcquireOptions): Promise<MultiLock | null> {
    const ordered = validateKeys(keys);
    const settings = validateAcquireOptions(options);
    return tryInOrder(ordered, settings, this.#multiKeyPath(settings));
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
    this.#setPasses?.drop(key);
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

  /**
   * What the driver is asked for `key`, with checked `settings`; throws if the provider is closed or the signal aborted.
   * Without a known owner the secret is `drawnSecret` (one multi-key call's), else a new one.
   */
  #request(key: string, settings: AcquireOptions, drawnSecret?: string): DriverAcquireRequest {
    this.#assertOpen();
    settings.signal?.throwIfAborted();
    const knownOwner = settings.owner ?? currentOwnerSecret();
    return {
      key,
      ownerSecret: knownOwner ?? drawnSecret ?? newOwnerSecret(),
      holder: this.#holder,
      ttlMs: roundTtl(settings.ttlMs ?? DEFAULT_TTL_MS, this.capabilities),
      // A multi-key call's secret serves all its keys: none of them is this acquire's alone.
      freshOwner: knownOwner === undefined && drawnSecret === undefined,
    };
  }

  /**
   * How one multi-key call takes its keys, all on behalf of one owner: the single-key path and the driver's all-at-once
   * attempt where it has one (each key observed as a call of its own; the attempt as a `tryAcquire`), and releases together.
   */
  #multiKeyPath(settings: AcquireOptions): MultiKeyPath {
    this.#assertOpen();
    const drawnSecret = newOwnerSecret();
    const request = (key: string) => this.#request(key, settings, drawnSecret);
    const closed = () => this.#closed !== undefined;
    const driver = this.#driver;
    // Only a set held under the secret drawn here may be passed: no other acquire ever brings it.
    const setPasses = settings.owner === undefined && currentOwnerSecret() === undefined ? this.#setPasses : undefined;
    return {
      request,
      acquire: (keyRequest, keySettings, refused) =>
        this.#observed(keyRequest.key, "acquire", keySettings, () =>
          refused ? this.#acquisition.acquireAfterRefusal(keyRequest, keySettings) : this.#acquisition.acquire(keyRequest, keySettings),
        ),
      tryAcquire: (keyRequest, keySettings) =>
        this.#observed(keyRequest.key, "tryAcquire", keySettings, () => this.#acquisition.tryAcquire(keyRequest, keySettings)),
      ...(driver.tryAcquireAll === undefined
        ? {}
        : {
            tryTogether: (keys: readonly string[]) =>
              this.#observedTogether(keys, settings, () =>
                acquireTogether(driver, this.#holds, sameOwnerRequests(request(keys[0] as string), keys), settings, closed),
              ),
          }),
      contended: (key) => driver.acquire !== undefined && driver.isWatching?.(key) === true,
      ...(setPasses === undefined
        ? { releaseAll: (locks) => this.#holds.releaseTogether(locks as LockHandle[]) }
        : {
            pass: (keys: readonly string[]) => {
              if (!setPasses.anyLingers) return undefined;
              const first = request(keys[0] as string);
              if (!setPasses.lingers(keys, first.ttlMs)) return undefined;
              return this.#observedPass(keys, settings, () => setPasses.pass(sameOwnerRequests(first, keys), settings, closed));
            },
            releaseAll: (locks, chain) => setPasses.release(locks as LockHandle[], chain),
          }),
    };
  }

  /** `run`, with each of `keys` observed as a call of its own that gets that key's lock (or nothing) from `run`'s answer. */
  #observedTogether(keys: readonly string[], settings: AcquireOptions, run: () => Promise<Lock[] | null>): Promise<Lock[] | null> {
    if (!acquireObserved()) return run();
    const together = run();
    keys.forEach((key, i) => {
      observeAcquire(this.backend, key, "tryAcquire", settings, () => together.then((locks) => locks?.[i] ?? null)).catch(() => undefined);
    });
    return together;
  }

  /** `run`'s pass observed as `#observedTogether` observes an attempt at the set. */
  #observedPass<T extends { locks: Lock[] }>(keys: readonly string[], settings: AcquireOptions, run: () => Promise<T | null>): Promise<T | null> {
    if (!acquireObserved()) return run();
    const passing = run();
    this.#observedTogether(keys, settings, () => passing.then((passed) => passed?.locks ?? null)).catch(() => undefined);
    return passing;
  }

  #observed<T extends Lock | null>(key: string, operation: "acquire" | "tryAcquire", settings: AcquireOptions, run: () => Promise<T>): Promise<T> {
    return acquireObserved() ? observeAcquire(this.backend, key, operation, settings, run) : run();
  }

  #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return callDriver(this.backend, operation, run);
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) throw new ProviderClosedError(this.backend);
  }

  async #shutdown(): Promise<void> {
    this.#acquisition.abortAll(new ProviderClosedError(this.backend));
    await this.#setPasses?.close();
    await this.#semaphores.close();
    this.#readWriteLocks.close();
    await this.#holds.close();
    await this.#driver.close();
  }
}

/** `first`, the request for `keys[0]`, and one like it for each other key: one call's checks and owner serve all of its keys. */
function sameOwnerRequests(first: DriverAcquireRequest, keys: readonly string[]): DriverAcquireRequest[] {
  const { ownerSecret, holder, ttlMs, freshOwner } = first;
  return keys.map((key, i) => (i === 0 ? first : { key, ownerSecret, holder, ttlMs, freshOwner }));
}
