import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { deleteNode, readNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { decodeHoldRecord } from "../recipe/hold-record.js";
import type { HeldNode } from "./held-node.js";
import { IdleLockPaths } from "./idle-lock-paths.js";

/** How soon a sweep that failed (server unreachable) tries again; the session's own deadline ends it anyway. */
const RETRY_MS = 100;

/**
 * The nodes this driver holds locks by, and the leases on them. ZooKeeper keeps a node until its session ends, so the
 * lease is ours to enforce: when `leaseEnd` passes without a renewal the node is deleted, on the version last seen, so
 * that a renewal or re-entry written by another process meanwhile (same owner) is noticed and honoured instead: its
 * lease then counts from the moment it is seen here, which is after it was written. Core's own deadline for the hold
 * ends earlier (it starts before the request and subtracts drift), so `lock.signal` aborts before the node goes.
 *
 * Nodes whose fate is unknown here (a waiter's node after a failed withdrawal) are swept the same way, at once.
 */
export class HeldNodes {
  readonly #nodes = new Map<string, HeldNode>();
  readonly #strays = new Map<string, ZooKeeperSession>();
  readonly #idle = new IdleLockPaths();
  #timer: NodeJS.Timeout | undefined;
  #due = Number.POSITIVE_INFINITY;
  #closed = false;

  get(key: string): HeldNode | undefined {
    const node = this.#nodes.get(key);
    if (node?.session.lost.aborted === true) {
      this.#nodes.delete(key);
      return undefined;
    }
    return node;
  }

  /** Every node held on live sessions, for `inspect`'s lease and `list`. */
  byPath(path: string): HeldNode | undefined {
    for (const node of this.#nodes.values()) if (node.path === path && !node.session.lost.aborted) return node;
    return undefined;
  }

  add(node: HeldNode): void {
    this.#nodes.set(node.key, node);
    this.#arm(node.leaseEnd);
  }

  /** Records a write of ours: the node's new version and count, and the lease from the answer on. */
  written(node: HeldNode, version: number, count: number, leaseEnd: number): void {
    node.version = version;
    node.count = count;
    node.leaseEnd = Math.max(node.leaseEnd, leaseEnd);
    this.#arm(node.leaseEnd);
  }

  delete(node: HeldNode): void {
    if (this.#nodes.get(node.key) === node) this.#nodes.delete(node.key);
  }

  /** A node of `session` that should not exist (a withdrawal failed): deleted at the next sweep, whatever its version. */
  stray(session: ZooKeeperSession, path: string): void {
    this.#strays.set(path, session);
    this.#arm(performance.now());
  }

  /** A node of ours left its lock path (released, expired, force-released): the path goes once it stays empty a while. */
  left(session: ZooKeeperSession, nodePath: string): void {
    this.#idle.left(session, nodePath);
  }

  close(): void {
    this.#closed = true;
    this.#idle.close();
    clearTimeout(this.#timer);
    this.#nodes.clear();
    this.#strays.clear();
  }

  #arm(at: number): void {
    if (this.#closed || at >= this.#due) return;
    clearTimeout(this.#timer);
    this.#due = at;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, at - performance.now()));
    this.#timer.unref();
  }

  #rearm(): void {
    this.#due = Number.POSITIVE_INFINITY;
    let next = this.#strays.size > 0 ? performance.now() + RETRY_MS : Number.POSITIVE_INFINITY;
    for (const node of this.#nodes.values()) next = Math.min(next, node.leaseEnd);
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }

  async #sweep(): Promise<void> {
    this.#due = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const work: Promise<void>[] = [];
    for (const node of [...this.#nodes.values()]) {
      if (node.session.lost.aborted) this.#nodes.delete(node.key);
      else if (node.leaseEnd <= now) work.push(this.#expire(node));
    }
    for (const [path, session] of [...this.#strays]) work.push(this.#removeStray(path, session));
    await Promise.all(work);
    this.#rearm();
  }

  async #expire(node: HeldNode): Promise<void> {
    const { session, path } = node;
    try {
      await deleteNode(session, path, node.version);
      this.delete(node);
      this.left(session, path);
    } catch (error) {
      if (isZkError(error, ZK_ERROR.noNode)) this.delete(node);
      else if (isZkError(error, ZK_ERROR.badVersion)) await this.#reread(node);
      else node.leaseEnd = performance.now() + RETRY_MS;
    }
  }

  /** Someone else (the same owner elsewhere) wrote the node: take its count and lease, counted from now. */
  async #reread(node: HeldNode): Promise<void> {
    const { session, path } = node;
    try {
      const read = await readNode(session, path);
      if (read === undefined) {
        this.delete(node);
        return;
      }
      const record = decodeHoldRecord(read.data);
      node.version = read.stat.version;
      node.count = record?.count ?? node.count;
      node.leaseEnd = performance.now() + (record?.leaseMs ?? 0);
    } catch {
      node.leaseEnd = performance.now() + RETRY_MS;
    }
  }

  async #removeStray(path: string, session: ZooKeeperSession): Promise<void> {
    if (session.lost.aborted) {
      this.#strays.delete(path);
      return;
    }
    try {
      await deleteNode(session, path, -1);
      this.#strays.delete(path);
      this.left(session, path);
    } catch (error) {
      if (isZkError(error, ZK_ERROR.noNode)) this.#strays.delete(path);
    }
  }
}
