import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { deleteNode, readNode, writeNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import type { HeldNode } from "../leases/held-node.js";
import { decodeHoldRecord, encodeHoldRecord, ownerDigest, zxidOf } from "./hold-record.js";
import { joinLine } from "./join-line.js";
import { joinedPosition, type LinePosition } from "./line-position.js";
import type { LockContext } from "./lock-context.js";
import { ATTEMPT_TAG, lockPath } from "./lock-paths.js";

/** A request's node waiting in line behind `predecessor`. */
export interface InLine {
  readonly session: ZooKeeperSession;
  readonly lockPath: string;
  readonly name: string;
  readonly predecessor: string;
}

/** What one step into the line comes to: a grant, our node waiting in line, or (an attempt) a refusal without a node. */
export type Taken = { readonly granted: DriverGranted } | { readonly inLine: InLine; readonly retryAfterMs: number } | { readonly refusedMs: number };

/** How many times a re-entry is tried again when a concurrent write changed the holder's node under it. */
const REENTRY_ATTEMPTS = 8;

/**
 * Takes the lock for `request`, or re-enters it, or leaves a node waiting in line (the caller waits, or withdraws it):
 * 1. re-entry of a node this driver holds for the same owner: the count + 1 on its version;
 * 2. else a node of our own joins the line (an attempt's tagged, so that it never counts as a waiter); first in line holds
 *    the lock (token: its czxid, or the line's pzxid when alone);
 * 3. behind someone: if the first node is the same owner's (another provider or process), that hold is re-entered and
 *    our node withdrawn; else our node stays in line.
 */
export async function takeHold(context: LockContext, request: DriverAcquireRequest, attempt: boolean): Promise<Taken> {
  const session = await context.sessions.session();
  const owner = ownerDigest(request.ownerSecret);
  const own = context.held.get(request.key);
  if (own !== undefined && own.owner === owner && own.session === session) {
    const granted = await reenterOwn(context, own, request.ttlMs);
    if (granted !== undefined) return { granted };
  }
  const path = lockPath(context.chroot, request.key);
  const data = encodeHoldRecord({ holder: request.holder, owner, count: 1, leaseMs: request.ttlMs });
  const joined = await joinLine(session, path, data, attempt ? ATTEMPT_TAG : undefined);
  const { name } = joined;
  try {
    return await decide(context, session, request, owner, path, name, await joinedPosition(session, path, joined));
  } catch (error) {
    await withdraw(context, session, `${path}/${name}`);
    throw error;
  }
}

async function decide(
  context: LockContext,
  session: ZooKeeperSession,
  request: DriverAcquireRequest,
  owner: string,
  path: string,
  name: string,
  position: LinePosition,
): Promise<Taken> {
  if (position.kind === "first") return { granted: grantFirst(context, session, request, owner, `${path}/${name}`, position) };
  if (position.kind === "gone") throw new Error(`ZooKeeper node ${path}/${name} vanished right after it was created`);
  let retryAfterMs = session.timeoutMs;
  if (request.freshOwner !== true) {
    const reentered = await reenterElsewhere(session, `${path}/${position.first}`, owner, request.ttlMs);
    if (reentered !== undefined && "granted" in reentered) {
      await withdraw(context, session, `${path}/${name}`);
      return reentered;
    }
    if (reentered !== undefined) retryAfterMs = reentered.retryAfterMs;
  }
  return { inLine: { session, lockPath: path, name, predecessor: position.predecessor }, retryAfterMs };
}

/** Our node is first in line: the hold is ours, its lease kept by `HeldNodes` from now. */
export function grantFirst(
  context: LockContext,
  session: ZooKeeperSession,
  request: DriverAcquireRequest,
  owner: string,
  nodePath: string,
  position: Extract<LinePosition, { kind: "first" }>,
): DriverGranted {
  const token = zxidOf(position.token);
  const node: HeldNode = {
    key: request.key,
    path: nodePath,
    session,
    owner,
    holder: request.holder,
    token,
    version: position.version,
    count: 1,
    leaseEnd: performance.now() + request.ttlMs,
  };
  context.held.add(node);
  return { acquired: true, fencingToken: token, holdCount: 1, ttlMs: request.ttlMs, grantedAt: position.readAt, lost: session.lost };
}

/** Re-entry of a node this driver holds: count + 1, the lease at the larger of what is left and `ttlMs`. */
async function reenterOwn(context: LockContext, node: HeldNode, ttlMs: number): Promise<DriverGranted | undefined> {
  const count = node.count + 1;
  const leaseMs = Math.max(ttlMs, Math.ceil(node.leaseEnd - performance.now()));
  const data = encodeHoldRecord({ holder: node.holder, owner: node.owner, count, leaseMs });
  try {
    const stat = await writeNode(node.session, node.path, data, node.version);
    context.held.written(node, stat.version, count, performance.now() + leaseMs);
    return { acquired: true, fencingToken: node.token, holdCount: count, ttlMs: leaseMs, lost: node.session.lost };
  } catch (error) {
    if (isZkError(error, ZK_ERROR.badVersion) || isZkError(error, ZK_ERROR.noNode)) return undefined;
    throw error;
  }
}

/**
 * Re-entry of the first node in line when the same owner holds it from another provider or process: count + 1 on its
 * version. Undefined when it is not a distlock hold; a refusal with the holder's lease when another owner holds it.
 * The lease written is the larger of the one the node had and `ttlMs`; the grant claims only `ttlMs`, as the holder's
 * driver counts the lease from when it sees this write, which is later.
 */
async function reenterElsewhere(
  session: ZooKeeperSession,
  firstPath: string,
  owner: string,
  ttlMs: number,
): Promise<{ granted: DriverGranted } | { retryAfterMs: number } | undefined> {
  for (let attempt = 1; attempt <= REENTRY_ATTEMPTS; attempt++) {
    const read = await readNode(session, firstPath);
    const record = decodeHoldRecord(read?.data);
    if (read === undefined || record === undefined) return undefined;
    if (record.owner !== owner) return { retryAfterMs: record.leaseMs };
    const count = record.count + 1;
    try {
      await writeNode(session, firstPath, encodeHoldRecord({ ...record, count, leaseMs: Math.max(record.leaseMs, ttlMs) }), read.stat.version);
      return { granted: { acquired: true, fencingToken: zxidOf(read.stat.czxid), holdCount: count, ttlMs } };
    } catch (error) {
      if (isZkError(error, ZK_ERROR.noNode)) return undefined;
      if (!isZkError(error, ZK_ERROR.badVersion)) throw error;
    }
  }
  return undefined;
}

/**
 * Takes our node out of line. When that fails the node may still be there, and could become first with nobody
 * waiting on it: `HeldNodes` deletes it at its next sweep.
 */
export async function withdraw(context: LockContext, session: ZooKeeperSession, nodePath: string): Promise<void> {
  try {
    await deleteNode(session, nodePath, -1);
  } catch (error) {
    if (!isZkError(error, ZK_ERROR.noNode)) context.held.stray(session, nodePath);
  }
}
