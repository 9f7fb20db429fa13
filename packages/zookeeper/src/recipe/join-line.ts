import { randomUUID } from "node:crypto";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { children, childrenOf, createEphemeralSequential, createParents } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { LOCK_NAME, protectedPrefix } from "./lock-paths.js";

/** Attempts at a create whose parent vanished meanwhile (an idle lock path is deleted) or whose answer was lost. */
const CREATE_ATTEMPTS = 4;

/** Our node in a line, and the line as read right after the create, when that read could be sent along with it. */
export interface Joined {
  readonly name: string;
  /** `performance.now()` before the create was sent. */
  readonly sentAt: number;
  /** Our node's `czxid` and the lock path's children, read in the same round trip, after our create. */
  readonly read?: { readonly czxid: Buffer; readonly line: string[] };
}

/**
 * Joins the line of `lockPath` as Curator's `InterProcessMutex` does (or its `LeaderLatch`, with `lockName` "latch-"):
 * an ephemeral sequential node named `_c_<uuid>-lock-<sequence>` (protected mode), the parents made when missing. The line is read in the same round trip:
 * the read is sent right behind the create, and ZooKeeper answers one session's requests in order, so it sees our node;
 * or, on a lock path the session takes over and over, the line is its watch's view (`LineViews`), and only the create is sent.
 * A create whose answer was lost to a disconnect is found again by its uuid, so no node is left in line that nobody
 * waits for. A `tag` goes after the uuid, where Curator neither sorts nor looks (`_c_<uuid>-<tag>-lock-<sequence>`).
 */
export async function joinLine(session: ZooKeeperSession, lockPath: string, data: Buffer, tag?: string, lockName = LOCK_NAME): Promise<Joined> {
  const uuid = randomUUID();
  const prefix = protectedPrefix(tag === undefined ? uuid : `${uuid}-${tag}`, lockName);
  for (let attempt = 1; ; attempt++) {
    const sentAt = performance.now();
    const [created, read] = session.batch(() => {
      const viewed = session.lines.beforeTake(lockPath);
      const create = createEphemeralSequential(session, `${lockPath}/${prefix}`, data);
      return [create, viewed ? undefined : children(session, lockPath).catch(() => undefined)] as const;
    });
    try {
      const { path, czxid } = await created;
      const line = read === undefined ? session.lines.line(lockPath) : await read;
      return { name: path.slice(path.lastIndexOf("/") + 1), sentAt, read: line === undefined ? undefined : { czxid, line } };
    } catch (error) {
      if (attempt >= CREATE_ATTEMPTS) throw error;
      if (isZkError(error, ZK_ERROR.noNode)) await createParents(session, lockPath).catch(ignoreNodeExists);
      else if (isZkError(error, ZK_ERROR.connectionLoss)) {
        const found = (await childrenOf(session, lockPath)).find((name) => name.startsWith(`_c_${uuid}-`));
        if (found !== undefined) return { name: found, sentAt };
      } else throw error;
    }
  }
}

function ignoreNodeExists(error: unknown): void {
  if (!isZkError(error, ZK_ERROR.nodeExists)) throw error;
}
