import type { DriverGranted, DriverPermitRequest, DriverRefused, DriverRenewal, DriverWait, SemaphoreDriver, SemaphoreState } from "@distlock/core/driver";
import type { SessionPool } from "../connection/session-pool.js";
import { childrenOf, deleteNode, writeNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { encodeHoldRecord, ownerDigest } from "../recipe/hold-record.js";
import { joinLine } from "../recipe/join-line.js";
import { joinedLine, joinedPosition, linePosition } from "../recipe/line-position.js";
import { ATTEMPT_TAG, sortLine } from "../recipe/lock-paths.js";
import { waitUntilFirst } from "../waiting/wait-until-first.js";
import { inspectSemaphore } from "./inspect-semaphore.js";
import { PermitGrants } from "./permit-grants.js";
import { type SemaphorePaths, semaphorePaths } from "./semaphore-paths.js";
import { takePermits } from "./take-permits.js";

/** A held semaphore's permits free within this when nobody renews: the answer to a refused attempt. */
const REFUSED_RETRY_MS = 1_000;

/**
 * Counting semaphores in the layout of Curator's `InterProcessSemaphoreV2`: acquirers queue in the line of an internal
 * mutex (`<S>/locks`, a strict FIFO line across processes), and the one holding it creates its lease nodes
 * (`<S>/leases`) and waits until they fit the permits. Each lease is bound by its session and by its lease, as a lock's
 * node is.
 */
export class ZooKeeperSemaphoreDriver implements SemaphoreDriver {
  readonly #chroot: string;
  readonly #sessions: SessionPool;
  readonly #grants = new PermitGrants();

  constructor(chroot: string, sessions: SessionPool) {
    this.#chroot = chroot;
    this.#sessions = sessions;
  }

  async tryAcquire(request: DriverPermitRequest): Promise<DriverGranted | DriverRefused> {
    const refused: DriverRefused = { acquired: false, retryAfterMs: REFUSED_RETRY_MS };
    const session = await this.#sessions.session();
    const paths = semaphorePaths(this.#chroot, request.key);
    if ((await childrenOf(session, paths.locks)).length > 0) return refused;
    const joined = await joinLine(session, paths.locks, Buffer.alloc(0), ATTEMPT_TAG);
    const { name } = joined;
    try {
      const position = joinedPosition(joined) ?? (await linePosition(session, paths.locks, name));
      if (position.kind !== "first") return refused;
      return (await takePermits(this.#grants, session, paths, request, 0, undefined)) ?? refused;
    } finally {
      await this.#leaveLine(session, paths, name);
    }
  }

  async acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    const { signal } = wait;
    for (;;) {
      signal.throwIfAborted();
      const session = await this.#sessions.session();
      const paths = semaphorePaths(this.#chroot, request.key);
      const joined = await joinLine(session, paths.locks, Buffer.alloc(0));
      const { name } = joined;
      try {
        const line = joinedLine(joined) ?? sortLine(await childrenOf(session, paths.locks));
        const index = line.indexOf(name);
        if (index < 0) continue;
        if (index > 0) session.lines.contended(paths.locks);
        const position = index > 0 ? await waitUntilFirst(session, paths.locks, name, line[index - 1] as string, signal) : undefined;
        if (position?.kind === "gone") continue;
        const queued = index === 0 ? line.length - 1 : (await childrenOf(session, paths.locks)).length - 1;
        const granted = await takePermits(this.#grants, session, paths, request, queued, signal);
        if (granted !== undefined) return granted;
      } finally {
        await this.#leaveLine(session, paths, name);
      }
    }
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return Promise.all(renewals.map((renewal) => this.#renew(renewal)));
  }

  async release(name: string, ownerSecret: string): Promise<boolean> {
    const owner = ownerDigest(ownerSecret);
    const nodes = this.#grants.get(name, owner);
    if (nodes === undefined) return false;
    this.#grants.delete(name, owner);
    const deleted = await Promise.all(
      nodes.map((node) =>
        deleteNode(node.session, node.path, node.version).then(
          () => true,
          () => false,
        ),
      ),
    );
    return deleted.every(Boolean);
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    return inspectSemaphore(await this.#sessions.session(), semaphorePaths(this.#chroot, name), name, this.#grants);
  }

  close(): void {
    this.#grants.close();
  }

  async #renew(renewal: DriverRenewal): Promise<boolean> {
    const nodes = this.#grants.get(renewal.key, ownerDigest(renewal.ownerSecret));
    if (nodes === undefined) return false;
    const written = await Promise.all(
      nodes.map(async (node) => {
        const leaseMs = Math.max(renewal.ttlMs, Math.ceil(node.leaseEnd - performance.now()));
        const data = encodeHoldRecord({ holder: node.holder, owner: node.owner, count: nodes.length, leaseMs });
        try {
          const stat = await writeNode(node.session, node.path, data, node.version);
          this.#grants.leases.written(node, stat.version, 1, performance.now() + renewal.ttlMs);
          return true;
        } catch {
          return false;
        }
      }),
    );
    return written.every(Boolean);
  }

  /** Gives the internal mutex back (or takes our node out of its line); a failure leaves it to the sweep. */
  async #leaveLine(session: ZooKeeperSession, paths: SemaphorePaths, name: string): Promise<void> {
    const path = `${paths.locks}/${name}`;
    await deleteNode(session, path, -1).catch(() => this.#grants.leases.stray(session, path));
  }
}
