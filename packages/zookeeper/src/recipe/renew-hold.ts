import type { DriverRenewal } from "@distlock/core/driver";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { writeNode } from "../connection/zk-calls.js";
import type { HeldNode } from "../leases/held-node.js";
import { encodeHoldRecord, ownerDigest } from "./hold-record.js";
import type { LockContext } from "./lock-context.js";
import { lockPath } from "./lock-paths.js";
import { readHolder } from "./read-holder.js";

const ATTEMPTS = 8;

/**
 * Extends the owner's lease to at least `ttlMs` from now, never shortening it: a write on the node's version, so that
 * it fails (false, nothing changed) when the node is gone or belongs to another owner. The write also tells a holder's
 * driver in another process (same owner) that the lease was renewed.
 */
export async function renewHold(context: LockContext, renewal: DriverRenewal): Promise<boolean> {
  const owner = ownerDigest(renewal.ownerSecret);
  const own = context.held.get(renewal.key);
  if (own !== undefined && own.owner === owner) {
    const renewed = await renewOwn(context, own, renewal.ttlMs);
    if (renewed) return true;
  }
  const session = await context.sessions.session();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const holder = await readHolder(session, lockPath(context.chroot, renewal.key));
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
