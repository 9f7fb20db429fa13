import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { deleteNode, readNode, writeNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import type { HeldNode } from "../leases/held-node.js";
import { latchHoldOf, shareLatchHold } from "../leases/latch-holds.js";
import { decodeHoldRecord, encodeHoldRecord, ownerOf, zxidOf } from "./hold-record.js";
import { joinLine } from "./join-line.js";
import { joinedPosition, type LinePosition, linePosition } from "./line-position.js";
import type { LockContext } from "./lock-context.js";
import { lockPath } from "./lock-layout.js";
import { ATTEMPT_TAG } from "./lock-paths.js";

/** A request's node waiting in line behind `predecessor`. */
export interface InLine {
  readonly session: ZooKeeperSession;
  readonly lockPath: string;
  readonly name: string;
  readonly predecessor: string;
  /** The owner as our node's record names it (`ownerOf`). */
  readonly owner: string;
}

/** What one step into the line comes to: a grant, our node waiting in line, or (an attempt) a refusal without a node. */
export type Taken = { readonly granted: DriverGranted } | { readonly inLine: InLine; readonly retryAfterMs: number } | { readonly refusedMs: number };

/** How many times a re-entry is tried again when a concurrent write changed the holder's node under it. */
const REENTRY_ATTEMPTS = 8;

/**
 * Takes the lock for `request`, or re-enters it, or leaves a node waiting in line (the caller waits, or withdraws it):
 * 1. re-entry of a node this driver holds for the same owner: the count + 1 on its version;
 * 2. else a node of our own joins the line (an attempt's tagged, so that it never counts as a waiter); first in line holds
 *    the lock (token: its czxid);
 * 3. behind someone: if the first node is the same owner's (another provider or process), that hold is re-entered and
 *    our node withdrawn; else our node stays in line.
 */
export async function takeHold(context: LockContext, request: DriverAcquireRequest, attempt: boolean): Promise<Taken> {
  const session = context.sessions.established ?? (await context.sessions.session());
  const own = context.held.get(request.key);
  if (own !== undefined && own.ownerSecret === request.ownerSecret && own.session === session) {
    const granted = await reenterOwn(context, own, request.ttlMs);
    if (granted !== undefined) return { granted };
  }
  const { lockName } = context.layout;
  const path = lockPath(context.layout, request.key);
  const owner = ownerOf(request);
  const data = encodeHoldRecord({ holder: request.holder, owner, count: 1, leaseMs: request.ttlMs });
  const joined = await joinLine(session, path, data, attempt ? ATTEMPT_TAG : undefined, lockName);
  const { name } = joined;
  try {
    const position = joinedPosition(joined, lockName) ?? (await linePosition(session, path, name, lockName));
    if (position.kind === "first") return { granted: grantFirst(context, session, request, owner, `${path}/${name}`, position) };
    session.lines.contended(path);
    return await decide(context, session, request, owner, path, name, position);
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
  position: Exclude<LinePosition, { kind: "first" }>,
): Promise<Taken> {
  if (position.kind === "gone") throw new Error(`ZooKeeper node ${path}/${name} vanished right after it was created`);
  let retryAfterMs = session.timeoutMs;
  if (request.freshOwner !== true) {
    const firstPath = `${path}/${position.first}`;
    const reentered = context.layout.writesNodes
      ? await reenterElsewhere(session, firstPath, owner, request.ttlMs)
      : (reenterLatchHere(context, path, firstPath, request.ownerSecret, request.ttlMs) ?? (await leaseAhead(session, firstPath)));
    if (reentered !== undefined && "granted" in reentered) {
      await withdraw(context, session, `${path}/${name}`);
      return reentered;
    }
    if (reentered !== undefined) retryAfterMs = reentered.retryAfterMs;
  }
  return { inLine: { session, lockPath: path, name, predecessor: position.predecessor, owner }, retryAfterMs };
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
    ownerSecret: request.ownerSecret,
    holder: request.holder,
    token,
    version: position.version,
    count: 1,
    leaseEnd: performance.now() + request.ttlMs,
  };
  context.held.add(node);
  if (!context.layout.writesNodes) shareLatchHold(context.ensemble, nodePath.slice(0, nodePath.lastIndexOf("/")), { node, held: context.held });
  return { acquired: true, fencingToken: token, holdCount: 1, ttlMs: request.ttlMs, grantedAt: position.readAt, lost: session.lost };
}

/**
 * Re-entry of a node this driver holds: count + 1, the lease at the larger of what is left and `ttlMs`. Written on the
 * node's version, or (a layout that never writes its nodes) kept here alone: nobody else can re-enter it then.
 */
async function reenterOwn(context: LockContext, node: HeldNode, ttlMs: number): Promise<DriverGranted | undefined> {
  const count = node.count + 1;
  const leaseMs = Math.max(ttlMs, Math.ceil(node.leaseEnd - performance.now()));
  if (!context.layout.writesNodes) {
    context.held.written(node, node.version, count, performance.now() + leaseMs);
    return { acquired: true, fencingToken: node.token, holdCount: count, ttlMs: leaseMs, lost: node.session.lost };
  }
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
 * Re-entry of a latch node that another driver of this process holds for the same owner: count + 1 there, where the
 * count and lease of a node nobody writes live.
 */
function reenterLatchHere(
  context: LockContext,
  lockPath: string,
  firstPath: string,
  ownerSecret: string,
  ttlMs: number,
): { granted: DriverGranted } | undefined {
  const hold = latchHoldOf(context.ensemble, lockPath, ownerSecret);
  if (hold === undefined || hold.node.path !== firstPath) return undefined;
  const { node, held } = hold;
  const leaseMs = Math.max(ttlMs, Math.ceil(node.leaseEnd - performance.now()));
  held.written(node, node.version, node.count + 1, performance.now() + leaseMs);
  return { granted: { acquired: true, fencingToken: node.token, holdCount: node.count, ttlMs: leaseMs, lost: node.session.lost } };
}

/**
 * Where nodes are never written after their create (a leader latch), the same owner in another process cannot re-enter:
 * it waits like anyone else, told the lease of the node ahead (as its create wrote it) as when to look again.
 */
async function leaseAhead(session: ZooKeeperSession, firstPath: string): Promise<{ retryAfterMs: number } | undefined> {
  const record = decodeHoldRecord((await readNode(session, firstPath))?.data);
  return record === undefined ? undefined : { retryAfterMs: record.leaseMs };
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
