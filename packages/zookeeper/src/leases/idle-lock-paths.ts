import { deleteNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";

/** How long a lock path stays after its last node left, as Curator's container parents stay until the server's next check. */
export const IDLE_LOCK_PATH_MS = 60_000;

/**
 * Deletes lock paths a while after their last node left, as ZooKeeper deletes Curator's container parents (this client
 * cannot create containers). Deleting at once would cost the next taker a round trip to make the path again. ZooKeeper
 * refuses to delete a path that has children again, so this never races a taker; a create that finds the path gone
 * makes it again.
 */
export class IdleLockPaths {
  readonly #paths = new Map<string, { session: ZooKeeperSession; since: number }>();
  #timer: NodeJS.Timeout | undefined;

  /** The node at `nodePath` left its lock path. */
  left(session: ZooKeeperSession, nodePath: string): void {
    const parent = nodePath.slice(0, nodePath.lastIndexOf("/"));
    const idle = this.#paths.get(parent);
    // Updated in place: a lock taken and released over and over leaves its path here on every release.
    if (idle !== undefined) {
      idle.session = session;
      idle.since = performance.now();
    } else this.#paths.set(parent, { session, since: performance.now() });
    this.#timer ??= this.#arm();
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#paths.clear();
  }

  #arm(): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#timer = undefined;
      const now = performance.now();
      for (const [path, { session, since }] of this.#paths) {
        if (now - since < IDLE_LOCK_PATH_MS) continue;
        this.#paths.delete(path);
        if (session.lost.aborted) continue;
        session.lines.forget(path);
        deleteNode(session, path, -1).catch(() => undefined);
      }
      if (this.#paths.size > 0) this.#timer = this.#arm();
    }, IDLE_LOCK_PATH_MS);
    timer.unref();
    return timer;
  }
}
