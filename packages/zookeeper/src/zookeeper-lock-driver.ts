import type {
  DriverAcquireRequest,
  DriverGranted,
  DriverRefused,
  DriverRenewal,
  DriverWait,
  LockCapabilities,
  LockDriver,
  LockState,
  SemaphoreDriver,
} from "@distlock/core/driver";
import { SessionPool } from "./connection/session-pool.js";
import { HeldNodes } from "./leases/held-nodes.js";
import type { ResolvedZooKeeperLockOptions } from "./options/zookeeper-lock-provider-options.js";
import { forceReleaseLock, inspectLock, listLocks } from "./recipe/inspect-lock.js";
import type { LockContext } from "./recipe/lock-context.js";
import { lockLayout } from "./recipe/lock-layout.js";
import { releaseHold } from "./recipe/release-hold.js";
import { renewHold } from "./recipe/renew-hold.js";
import { takeHold, withdraw } from "./recipe/take-hold.js";
import { ZooKeeperSemaphoreDriver } from "./semaphore/zookeeper-semaphore-driver.js";
import { waitForTurn } from "./waiting/wait-for-turn.js";

/**
 * Locks as Apache Curator's `InterProcessMutex` keeps them (or its `LeaderLatch`, `options.recipe`): ephemeral
 * sequential nodes in a line under the lock path, first in line holds, each waiter watching the node just ahead. Every hold is bound by the ZooKeeper session that
 * created its node (`DriverGranted.lost`) and by its lease, which this driver enforces (`HeldNodes`).
 */
export class ZooKeeperLockDriver implements LockDriver {
  readonly backend = "zookeeper";
  readonly capabilities: LockCapabilities;
  /** Counting semaphores in Curator's `InterProcessSemaphoreV2` layout, on the same sessions. */
  readonly semaphores: SemaphoreDriver;
  readonly #semaphores: ZooKeeperSemaphoreDriver;
  readonly #context: LockContext;
  readonly #sessions: SessionPool;
  readonly #held = new HeldNodes();

  constructor(options: ResolvedZooKeeperLockOptions) {
    const ensemble = options.hosts.join(",");
    this.#sessions = new SessionPool({
      connectString: ensemble,
      sessionTimeoutMs: options.sessionTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs,
    });
    this.#context = { ensemble, layout: lockLayout(options.chroot, options.recipe), sessions: this.#sessions, held: this.#held };
    this.capabilities = Object.freeze({
      fencing: true,
      fifo: true,
      // Leases are kept on the holder's monotonic clock; only session expiry runs on the server's.
      serverClock: false,
      // A crashed holder's node goes when its session expires: no lease may be shorter than that.
      minTtlMs: options.sessionTimeoutMs,
      ttlGranularityMs: 1,
      listing: true,
      semaphore: true,
    });
    this.#semaphores = new ZooKeeperSemaphoreDriver(options.chroot, this.#sessions);
    this.semaphores = this.#semaphores;
  }

  async tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    const taken = await takeHold(this.#context, request, true);
    if ("granted" in taken) return taken.granted;
    if ("refusedMs" in taken) return { acquired: false, retryAfterMs: Math.max(1, taken.refusedMs) };
    const { session, lockPath, name } = taken.inLine;
    await withdraw(this.#context, session, `${lockPath}/${name}`);
    return { acquired: false, retryAfterMs: Math.max(1, taken.retryAfterMs) };
  }

  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return waitForTurn(this.#context, request, wait);
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return Promise.all(renewals.map((renewal) => renewHold(this.#context, renewal)));
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return releaseHold(this.#context, key, ownerSecret);
  }

  inspect(key: string): Promise<LockState | null> {
    return inspectLock(this.#context, key);
  }

  list(prefix: string, limit: number): Promise<LockState[]> {
    return listLocks(this.#context, prefix, limit);
  }

  forceRelease(key: string): Promise<boolean> {
    return forceReleaseLock(this.#context, key);
  }

  async close(): Promise<void> {
    this.#held.close();
    this.#semaphores.close();
    await this.#sessions.close();
  }
}
