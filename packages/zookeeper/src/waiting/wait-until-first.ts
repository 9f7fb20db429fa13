import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { type LinePosition, linePosition } from "../recipe/line-position.js";
import { LOCK_NAME } from "../recipe/lock-paths.js";
import { predecessorGone } from "./predecessor-gone.js";

/** How long a waiter trusts its watch before it reads its line again anyway. */
export const RECHECK_MS = 10_000;

/**
 * Waits, watching only the node just ahead, until node `name` is first in the line of `linePath` (resolves with that
 * position) or is gone from it (resolves with "gone"); rejects with `signal.reason` on abort. The caller withdraws the node.
 */
export async function waitUntilFirst(
  session: ZooKeeperSession,
  linePath: string,
  name: string,
  predecessor: string,
  signal: AbortSignal,
  lockName = LOCK_NAME,
): Promise<Exclude<LinePosition, { kind: "behind" }>> {
  let ahead = predecessor;
  for (;;) {
    await predecessorGone(session, `${linePath}/${ahead}`, signal, RECHECK_MS);
    signal.throwIfAborted();
    const position = await linePosition(session, linePath, name, lockName);
    if (position.kind !== "behind") return position;
    ahead = position.predecessor;
  }
}
