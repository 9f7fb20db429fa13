import {
  type DriverGranted,
  type DriverPermitRequest,
  type DriverRefused,
  type DriverRenewal,
  type DriverWait,
  PermitsMismatchError,
  type SemaphoreDriver,
  type SemaphoreState,
} from "@distlock/core/driver";
import { type LockdConnection, LockdServerError } from "../connection/lockd-connection.js";
import { fromWire } from "../protocol/from-wire.js";
import type { WirePermitRequest } from "../protocol/lockd-protocol.js";

/**
 * lockd's counting semaphores, on the lock driver's connection. The server keeps each semaphore's strict FIFO line, so
 * `acquire` waits natively: the request stays unanswered until the server grants it, and an abort takes it back.
 */
export class LockdSemaphoreDriver implements SemaphoreDriver {
  readonly #connection: LockdConnection;
  readonly #prefix: string;

  constructor(connection: LockdConnection, prefix: string) {
    this.#connection = connection;
    this.#prefix = prefix;
  }

  async tryAcquire(request: DriverPermitRequest): Promise<DriverGranted | DriverRefused> {
    return fromWire(await this.#take(request, false));
  }

  /**
   * Waits in the server's line; no call timeout applies, `wait.signal` ends it. On abort the wait is taken back (or,
   * if the grant crossed the abort, the grant is released) before this rejects; if lockd cannot confirm that within
   * `commandTimeoutMs`, the socket is dropped, which takes the place in line with it, and a grant already made lapses
   * with its lease.
   */
  async acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    wait.signal.throwIfAborted();
    // The server starts the lease after it reads the request, so the lease began no earlier than this.
    const sentAt = performance.now();
    const granting = this.#take(request, true);
    const outcome = await untilAborted(granting, wait.signal);
    if (outcome === undefined) {
      granting.catch(() => undefined);
      await this.#connection.call({ op: "semWithdraw", name: this.#prefix + request.key, secret: request.ownerSecret }).catch(() => this.#connection.reset());
      throw wait.signal.reason;
    }
    const granted = fromWire(outcome.value);
    if (!granted.acquired) throw new Error("lockd refused a waiting request");
    return { ...granted, grantedAt: sentAt };
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const wire = renewals.map(({ key, ownerSecret, ttlMs }) => ({ key: this.#prefix + key, secret: ownerSecret, ttlMs }));
    return this.#connection.call({ op: "semRenew", renewals: wire });
  }

  release(name: string, ownerSecret: string): Promise<boolean> {
    return this.#connection.call({ op: "semRelease", name: this.#prefix + name, secret: ownerSecret });
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    const state = await this.#connection.call({ op: "semInspect", name: this.#prefix + name });
    if (state === null) return null;
    const holders = state.holders.map(({ holder, count, token, ttlRemainingMs }) => ({ holder, count, fencingToken: BigInt(token), ttlRemainingMs }));
    return { name, permits: state.permits, inUse: state.inUse, holders, waiters: state.waiters };
  }

  /** One `semAcquire`; a `wait` has no call timeout. A permit count the server disagrees with is PERMITS_MISMATCH. */
  async #take(request: DriverPermitRequest, wait: boolean) {
    const { key, ownerSecret, holder, ttlMs, permits, count } = request;
    const wire: WirePermitRequest = { name: this.#prefix + key, secret: ownerSecret, holder, ttlMs, permits, count, wait };
    try {
      return await this.#connection.call({ op: "semAcquire", request: wire }, { unbounded: wait });
    } catch (error) {
      if (error instanceof LockdServerError && error.wire.code === "PERMITS_MISMATCH") {
        throw new PermitsMismatchError(key, permits, error.wire.storedPermits ?? Number.NaN);
      }
      throw error;
    }
  }
}

/** `{ value }` once `promise` resolves, or undefined if `signal` aborts first; rejects as `promise` does. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ value: T } | undefined> {
  return new Promise((resolve, reject) => {
    const aborted = () => resolve(undefined);
    signal.addEventListener("abort", aborted, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", aborted);
        resolve({ value });
      },
      (error: unknown) => {
        signal.removeEventListener("abort", aborted);
        reject(error);
      },
    );
  });
}
