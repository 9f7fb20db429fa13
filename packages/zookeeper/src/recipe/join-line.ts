import { randomUUID } from "node:crypto";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { childrenOf, createEphemeralSequential, createParents } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { protectedPrefix } from "./lock-paths.js";

/** Attempts at a create whose parent vanished meanwhile (an emptied lock path is deleted) or whose answer was lost. */
const CREATE_ATTEMPTS = 4;

/**
 * Joins the line of `lockPath` as Curator's `InterProcessMutex` does: an ephemeral sequential node named
 * `_c_<uuid>-lock-<sequence>` (protected mode), the parents made when missing. Resolves with the node's name. A create
 * whose answer was lost to a disconnect is found again by its uuid, so no node is left in line that nobody waits for.
 * A `tag` goes after the uuid, where Curator neither sorts nor looks (`_c_<uuid>-<tag>-lock-<sequence>`).
 */
export async function joinLine(session: ZooKeeperSession, lockPath: string, data: Buffer, tag?: string): Promise<string> {
  const uuid = randomUUID();
  const prefix = protectedPrefix(tag === undefined ? uuid : `${uuid}-${tag}`);
  for (let attempt = 1; ; attempt++) {
    try {
      const path = await createEphemeralSequential(session, `${lockPath}/${prefix}`, data);
      return path.slice(path.lastIndexOf("/") + 1);
    } catch (error) {
      if (attempt >= CREATE_ATTEMPTS) throw error;
      if (isZkError(error, ZK_ERROR.noNode)) await createParents(session, lockPath).catch(ignoreNodeExists);
      else if (isZkError(error, ZK_ERROR.connectionLoss)) {
        const found = (await childrenOf(session, lockPath)).find((name) => name.startsWith(`_c_${uuid}-`));
        if (found !== undefined) return found;
      } else throw error;
    }
  }
}

function ignoreNodeExists(error: unknown): void {
  if (!isZkError(error, ZK_ERROR.nodeExists)) throw error;
}
