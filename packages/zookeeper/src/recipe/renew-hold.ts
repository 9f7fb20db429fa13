import type { DriverRenewal } from "@distlock/core/driver";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { statOf, writeNode } from "../connection/zk-calls.js";
import type { HeldNode } from "../leases/held-node.js";
import type { LatchHold } from "../leases/latch-holds.js";
import { heldLatch } from "./held-latch.js";
import { encodeHoldRecord, ownerDigest } from "./hold-record.js";
import type { LockContext } from "./lock-context.js";
import { readHolder } from "./read-holder.js";

const ATTEMPTS = 8;

/**
 * Extends the owner's lease to at least `ttlMs` from now, never shortening it: a write on the node's version, so that
 * it fails (false, nothing changed) when the node is gone or belongs to another owner. The write also tells a holder's
 * driver in another process (same owner) that the lease was renewed. A layout that never writes its nodes renews only
 * the nodes this driver holds, once the server shows them still there.
 */
export async function renewHold(context: LockContext, renewal: DriverRenewal): Promise<boolean> {
  const own = context.held.get(renewal.key);
  if (!context.layout.writesNodes) {
    const hold = heldLatch(context, renewal.key, renewal.ownerSecret);
    return hold !== undefined && (await confirmLatch(hold, renewal.ttlMs));
  }
  const ours = own !== undefined && own.ownerSecret === renewal.ownerSecret;
  if (ours) {
    const renewed = await renewOwn(context, own, renewal.ttlMs);
    if (renewed) return true;
  }
  // A fresh owner's node names it by the token only its holder keeps; any other owner by its digest.
  const owner = ours ? own.owner : ownerDigest(renewal.ownerSecret);
  const session = await context.sessions.session();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const holder = await readHolder(session, context.layout, renewal.key);
    if (holder?.record === undefined || holder.record.owner !== owner) return false;
    const leaseMs = Math.max(holder.record.leaseMs, renewal.ttlMs);
    try {
      const stat = await writeNode(session, holder.path, encodeHoldRecord({ ...holder.record, leaseMs }), holder.stat.version);
      const mine = context.held.byPath(holder.path);
      if (mine !== undefined) context.held.written(mine, stat.version, holder.record.count, performance.now() + renewal.ttlMs);
      return true;
    } catch (error) {
      if (!isZkError(error, ZK_ERROR.badVersion) && !isZkError(error, ZK_ERROR.noNode)) throw error;
    }
  }
  throw new Error(`ZooKeeper renewal of ${renewal.key} kept racing other writers of its node`);
}

async function renewOwn(context: LockContext, node: HeldNode, ttlMs: number): Promise<boolean> {
  const leaseMs = Math.max(ttlMs, Math.ceil(node.leaseEnd - performance.now()));
  try {
    const stat = await writeNode(
      node.session,
      node.path,
      encodeHoldRecord({ holder: node.holder, owner: node.owner, count: node.count, leaseMs }),
      node.version,
    );
    context.held.written(node, stat.version, node.count, performance.now() + ttlMs);
    return true;
  } catch (error) {
    if (isZkError(error, ZK_ERROR.badVersion) || isZkError(error, ZK_ERROR.noNode)) return false;
    throw error;
  }
}

/** The lease of a node nobody writes, renewed where it is kept once the node shows still there (so nobody else holds). */
async function confirmLatch({ node, held }: LatchHold, ttlMs: number): Promise<boolean> {
  const stat = await statOf(node.session, node.path);
  if (stat === null) return false;
  held.written(node, node.version, node.count, performance.now() + ttlMs);
  return true;
}
