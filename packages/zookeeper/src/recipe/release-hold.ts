import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { deleteNode, writeNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import type { LatchHold } from "../leases/latch-holds.js";
import { heldLatch } from "./held-latch.js";
import { encodeHoldRecord, type HoldRecord, ownerDigest } from "./hold-record.js";
import type { LockContext } from "./lock-context.js";
import { readHolder } from "./read-holder.js";

/** The answer `LockDriver.release` gives. */
export interface Released {
  readonly held: boolean;
  readonly holdCount: number;
}

const NOT_HELD: Released = Object.freeze({ held: false, holdCount: 0 });
const ATTEMPTS = 8;

/**
 * Drops one level of the owner's hold, on the node's version: the count − 1, or the node deleted at 0 (which wakes the
 * one waiter watching it). A node this driver holds is written on the version it knows (one round trip); otherwise, or
 * when another writer changed it, the holder is read first. A layout that never writes its nodes keeps the count here:
 * only this driver can hold them.
 */
export async function releaseHold(context: LockContext, key: string, ownerSecret: string): Promise<Released> {
  const own = context.held.get(key);
  if (!context.layout.writesNodes) {
    const hold = heldLatch(context, key, ownerSecret);
    return hold === undefined ? NOT_HELD : releaseLatch(hold);
  }
  const ours = own !== undefined && own.ownerSecret === ownerSecret;
  if (ours) {
    const record = { holder: own.holder, owner: own.owner, count: own.count, leaseMs: Math.max(1, Math.ceil(own.leaseEnd - performance.now())) };
    let done: (Released & { version: number }) | undefined;
    try {
      done = await dropLevel(context, own.session, own.path, record, own.version);
    } catch (error) {
      unlessConflict(error);
    }
    if (done !== undefined) {
      if (done.holdCount === 0) context.held.delete(own);
      else context.held.written(own, done.version, done.holdCount, own.leaseEnd);
      return done;
    }
  }
  // A fresh owner's node names it by the token only its holder keeps; any other owner by its digest.
  const owner = ours ? own.owner : ownerDigest(ownerSecret);
  const session = await context.sessions.session();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const holder = await readHolder(session, context.layout, key);
    if (holder?.record === undefined || holder.record.owner !== owner) return NOT_HELD;
    const done = await dropLevel(context, session, holder.path, holder.record, holder.stat.version).catch(unlessConflict);
    if (done === undefined) continue;
    const mine = context.held.byPath(holder.path);
    if (mine !== undefined && done.holdCount === 0) context.held.delete(mine);
    else if (mine !== undefined) context.held.written(mine, done.version, done.holdCount, mine.leaseEnd);
    return done;
  }
  throw new Error(`ZooKeeper release of ${key} kept racing other writers of its node`);
}

async function dropLevel(
  context: LockContext,
  session: ZooKeeperSession,
  path: string,
  record: HoldRecord,
  version: number,
): Promise<Released & { version: number }> {
  if (record.count > 1) {
    const leaseMs = record.leaseMs;
    const stat = await writeNode(session, path, encodeHoldRecord({ ...record, count: record.count - 1, leaseMs }), version);
    return { held: true, holdCount: record.count - 1, version: stat.version };
  }
  await deleteNode(session, path, version);
  context.held.left(session, path);
  return { held: true, holdCount: 0, version };
}

/** One level of a latch hold, whose count lives only in the driver that keeps it; at 0 its node is deleted. */
async function releaseLatch({ node, held }: LatchHold): Promise<Released> {
  if (node.count > 1) {
    const holdCount = node.count - 1;
    held.written(node, node.version, holdCount, node.leaseEnd);
    return { held: true, holdCount };
  }
  try {
    await deleteNode(node.session, node.path, node.version);
  } catch (error) {
    if (!isZkError(error, ZK_ERROR.noNode)) throw error;
    held.delete(node);
    return NOT_HELD;
  }
  held.delete(node);
  held.left(node.session, node.path);
  return { held: true, holdCount: 0 };
}

/** A node changed (BAD_VERSION) or went (NO_NODE) under a write: read again. */
function unlessConflict(error: unknown): undefined {
  if (isZkError(error, ZK_ERROR.badVersion) || isZkError(error, ZK_ERROR.noNode)) return undefined;
  throw error;
}
