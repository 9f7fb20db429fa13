import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import { LockErrorCode } from "../errors/error-codes.js";
import { LockError } from "../errors/lock-error.js";
import { LockTimeoutError } from "../errors/lock-timeout-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock, MultiLock } from "../types.js";
import { MultiLockHandle } from "./multi-lock-handle.js";
import { NO_CHAIN, type SetChain } from "./set-passes.js";

/** How the keys of a multi-key call are taken: the provider's single-key path, and the driver's all-at-once attempt where it has one. */
export interface MultiKeyPath {
  /** The request for `key` on behalf of the call's one owner; throws if the provider closed or the signal aborted. */
  request(key: string): DriverAcquireRequest;
  /**
   * Waits for one key; `refused`: an attempt at a set that starts with it was just refused (or skipped as contended), so
   * it goes straight to the wait.
   */
  acquire(request: DriverAcquireRequest, settings: AcquireOptions, refused: boolean): Promise<Lock>;
  tryAcquire(request: DriverAcquireRequest, settings: AcquireOptions): Promise<Lock | null>;
  /** One all-or-nothing attempt at `keys` that never waits: their locks, or null; undefined where the driver has none. */
  readonly tryTogether?: (keys: readonly string[]) => Promise<Lock[] | null>;
  /** True when `key` is contended here: its waiters are queued and this process hears its releases (`LockDriver.isWatching`). */
  contended(key: string): boolean;
  /**
   * The set of `keys` lingering here after a contended release (see `SetPasses`), passed to this call: its locks and
   * chain, or null when the server refused the pass; undefined (no call made) when no such set lingers.
   */
  readonly pass?: (keys: readonly string[]) => Promise<{ locks: Lock[]; chain: SetChain } | null> | undefined;
  /** Releases the locks of the set, together where the driver can; `chain`: how the set was taken. */
  releaseAll(locks: readonly Lock[], chain: SetChain): Promise<PromiseSettledResult<void>[]>;
}

/**
 * All or none of `keys` (already in the global order). The keys still missing are tried all at once where the driver
 * can; refused, the call waits for the first of them alone and goes on. While the first is contended the attempt that
 * would only be refused is skipped: the call goes straight to that key's wait, as a single acquire does. A caller so
 * waits for a key only while holding keys that sort before it, so no two callers each hold what the other waits for.
 * The time budget spans the whole call; whatever stops it midway (timeout, abort, close, failure) releases the keys
 * taken so far.
 */
export async function acquireInOrder(keys: readonly string[], settings: AcquireOptions, path: MultiKeyPath): Promise<MultiLock> {
  const passing = passedSet(keys, path);
  const passed = passing === undefined ? null : await passing;
  if (passed !== null) return passed;
  const startedAt = monotonicNow();
  const deadline = settings.waitMs === undefined ? undefined : startedAt + settings.waitMs;
  let locks: Lock[] = [];
  let waited = false;
  try {
    while (locks.length < keys.length) {
      const rest = locks.length === 0 ? keys : keys.slice(locks.length);
      const first = rest[0] as string;
      const tried = path.tryTogether !== undefined && rest.length > 1;
      const together = tried && !path.contended(first) ? await (path.tryTogether as NonNullable<MultiKeyPath["tryTogether"]>)(rest) : null;
      if (together !== null) {
        locks = locks.length === 0 ? together : [...locks, ...together];
        break;
      }
      const waitMs = deadline === undefined ? undefined : Math.max(0, deadline - monotonicNow());
      waited = true;
      locks.push(await path.acquire(path.request(first), { ...settings, waitMs }, tried));
    }
    return setHandle(locks, path, waited ? WAITED : NO_CHAIN);
  } catch (error) {
    await path.releaseAll(locks, NO_CHAIN);
    if (!LockError.is(error, LockErrorCode.LockTimeout)) throw error;
    throw new LockTimeoutError((error as LockTimeoutError).key, monotonicNow() - startedAt);
  }
}

/** One attempt at `keys`, never waiting: all of them, or null with none left held. */
export async function tryInOrder(keys: readonly string[], settings: AcquireOptions, path: MultiKeyPath): Promise<MultiLock | null> {
  const passing = passedSet(keys, path);
  const passed = passing === undefined ? null : await passing;
  if (passed !== null) return passed;
  if (path.tryTogether !== undefined) {
    const together = await path.tryTogether(keys);
    return together === null ? null : setHandle(together, path, NO_CHAIN);
  }
  const locks: Lock[] = [];
  try {
    for (const key of keys) {
      const lock = await path.tryAcquire(path.request(key), settings);
      if (lock === null) {
        await path.releaseAll(locks, NO_CHAIN);
        return null;
      }
      locks.push(lock);
    }
    return setHandle(locks, path, NO_CHAIN);
  } catch (error) {
    await path.releaseAll(locks, NO_CHAIN);
    throw error;
  }
}

/** A call that waited: its set may linger when released. */
const WAITED: SetChain = Object.freeze({ contended: true, passes: 0 });

/** The set passed to this call where one lingers here (see `MultiKeyPath.pass`), or null; undefined when none lingers. */
function passedSet(keys: readonly string[], path: MultiKeyPath): Promise<MultiLock | null> | undefined {
  return path.pass?.(keys)?.then((passed) => (passed === null ? null : setHandle(passed.locks, path, passed.chain)));
}

function setHandle(locks: Lock[], path: MultiKeyPath, chain: SetChain): MultiLockHandle {
  return new MultiLockHandle(locks, (held) => path.releaseAll(held, chain));
}
