import zookeeper, { type Stat, type Watcher } from "node-zookeeper-client";
import { isZkError, ZK_ERROR } from "./server-answers.js";
import type { CallOptions } from "./session-call.js";
import type { Created } from "./wire-requests.js";
import type { ZooKeeperSession } from "./zookeeper-session.js";

/**
 * Reads, mkdirp (idempotent), and writes on a version are sent again after a connection loss: a versioned write that
 * did happen the first time fails the second with BAD_VERSION, and its caller reads the node again.
 */
const READ: CallOptions = Object.freeze({ retryOnLoss: true });
/** A create's outcome is unknown when it goes unanswered: see `createEphemeralSequential`. */
const CREATE: CallOptions = Object.freeze({ abandonIfUnanswered: true });

/** A node's data and stat. */
export interface NodeRead {
  readonly data: Buffer | undefined;
  readonly stat: Stat;
}

/**
 * Brings the session's server up to date with every write committed before this call: a server answers reads from
 * what it has applied, which can lag what another session's server already showed its client. The client has no
 * `sync`, so this sends the cheapest write, a transaction that only checks that `/` exists (any version): its server
 * answers only once it has applied every earlier commit.
 */
export function catchUp(session: ZooKeeperSession): Promise<void> {
  return session.call<void>(
    "catchUp",
    (callback) =>
      session.client
        .transaction()
        .check("/", -1)
        .commit((error) => callback(error, undefined)),
    READ,
  );
}

/** The children's names, or none when the parent does not exist. */
export async function childrenOf(session: ZooKeeperSession, path: string): Promise<string[]> {
  try {
    return await children(session, path);
  } catch (error) {
    if (isZkError(error, ZK_ERROR.noNode)) return [];
    throw error;
  }
}

/** The children's names (the parent must exist). */
export function children(session: ZooKeeperSession, path: string): Promise<string[]> {
  return session.call<string[]>("getChildren", (callback) => session.wire.getChildren(path, callback), READ);
}

/** The children's names (the parent must exist); `watcher` hears the next change of the list. */
export function childrenWatched(session: ZooKeeperSession, path: string, watcher: Watcher): Promise<string[]> {
  return session.call<string[]>("getChildren", (callback) => session.client.getChildren(path, watcher, callback), READ);
}

/** The node's data and stat, or undefined when it does not exist. */
export async function readNode(session: ZooKeeperSession, path: string): Promise<NodeRead | undefined> {
  try {
    return await session.call<NodeRead>("getData", (callback) => session.client.getData(path, (error, data, stat) => callback(error, { data, stat })), READ);
  } catch (error) {
    if (isZkError(error, ZK_ERROR.noNode)) return undefined;
    throw error;
  }
}

/** The node's stat, or null when it does not exist; `watcher` hears its next change (deletion included). */
export function statOf(session: ZooKeeperSession, path: string, watcher?: Watcher): Promise<Stat | null> {
  return session.call<Stat | null>(
    "exists",
    (callback) => (watcher === undefined ? session.client.exists(path, callback) : session.client.exists(path, watcher, callback)),
    READ,
  );
}

/**
 * Creates an ephemeral sequential node; resolves with its whole path and its `czxid`. The only call whose unknown outcome ends the
 * session (`writes`): a node nobody knows of could come first in line and hold the lock while the session lives. Every
 * other write of a hold is bounded by the lease `HeldNodes` keeps, whatever its outcome.
 */
export function createEphemeralSequential(session: ZooKeeperSession, path: string, data: Buffer): Promise<Created> {
  return session.call<Created>("create", (callback) => session.wire.create(path, data, zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, callback), CREATE);
}

/** Creates `path` and its missing parents as persistent nodes. */
export function createParents(session: ZooKeeperSession, path: string): Promise<string> {
  return session.call<string>("mkdirp", (callback) => session.client.mkdirp(path, callback), READ);
}

/** Writes the data if the version still matches; resolves with the new stat. */
export function writeNode(session: ZooKeeperSession, path: string, data: Buffer, version: number): Promise<Stat> {
  return session.call<Stat>("setData", (callback) => session.client.setData(path, data, version, callback), READ);
}

/** Deletes the node if the version still matches (-1: any). */
export function deleteNode(session: ZooKeeperSession, path: string, version: number): Promise<void> {
  return session.call<void>("delete", (callback) => session.wire.remove(path, version, callback));
}
