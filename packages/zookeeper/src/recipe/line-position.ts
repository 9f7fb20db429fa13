import { childrenOf, statOf } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import type { Joined } from "./join-line.js";
import { LOCK_NAME, sortLine } from "./lock-paths.js";

/** Where a node of ours stands in its line. */
export type LinePosition =
  /** First: it holds the lock; `token` is its fencing token, `version` its data version, `readAt` when the read that showed it was sent. */
  | { readonly kind: "first"; readonly token: Buffer; readonly version: number; readonly readAt: number }
  /** Behind `predecessor`, the node it waits for; `first` holds the lock. */
  | { readonly kind: "behind"; readonly predecessor: string; readonly first: string }
  /** Not in line any more (deleted by a force-release, or its session ended). */
  | { readonly kind: "gone" };

/** Reads the line and our node's stat together (one round trip: the session sends both before either answer). */
export async function linePosition(session: ZooKeeperSession, lockPath: string, name: string, lockName = LOCK_NAME): Promise<LinePosition> {
  const readAt = performance.now();
  const [children, stat] = await Promise.all([childrenOf(session, lockPath), statOf(session, `${lockPath}/${name}`)]);
  const line = sortLine(children, lockName);
  const index = line.indexOf(name);
  if (index < 0 || stat === null) return { kind: "gone" };
  if (index === 0) return { kind: "first", token: stat.czxid, version: stat.version, readAt };
  return { kind: "behind", predecessor: line[index - 1] as string, first: line[0] as string };
}

/**
 * Where a node just created stands, from the line read along with its create; undefined when that read did not come
 * back or did not show the node (the caller reads the line again). First in line, its token is its `czxid`, from the
 * create's reply, and its version 0.
 */
export function joinedPosition(joined: Joined, lockName = LOCK_NAME): LinePosition | undefined {
  const line = joinedLine(joined, lockName);
  if (line === undefined) return undefined;
  const index = line.indexOf(joined.name);
  if (index === 0) return { kind: "first", token: (joined.read as NonNullable<Joined["read"]>).czxid, version: 0, readAt: joined.sentAt };
  return { kind: "behind", predecessor: line[index - 1] as string, first: line[0] as string };
}

/** The line in order, as read along with the create of our node; undefined when that read did not come back or did not show the node. */
export function joinedLine(joined: Joined, lockName = LOCK_NAME): string[] | undefined {
  const { name, read } = joined;
  if (read === undefined) return undefined;
  const line = sortLine(read.line, lockName);
  return line.includes(name) ? line : undefined;
}
