import type { LockState } from "@distlock/core/driver";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { catchUp, childrenOf, deleteNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { latchHoldAt } from "../leases/latch-holds.js";
import { foreignHolder, zxidOf } from "./hold-record.js";
import type { LockContext } from "./lock-context.js";
import { lockPath } from "./lock-layout.js";
import { decodeSegment } from "./lock-paths.js";
import { readHolder } from "./read-holder.js";

/**
 * The key's holder as the server shows it, after every change committed before the call (another session's release
 * or grant included). A Curator holder counts once (Curator keeps its count in the JVM) and has
 * no lease: it holds until it releases or its session ends, shown as an infinite `ttlRemainingMs`. A distlock holder's
 * lease is exact where this driver keeps it, else the lease its last writer asked for (an upper bound).
 */
export async function inspectLock(context: LockContext, key: string): Promise<LockState | null> {
  const session = await context.sessions.session();
  await catchUp(session);
  return holderState(context, session, key);
}

async function holderState(context: LockContext, session: ZooKeeperSession, key: string): Promise<LockState | null> {
  const holder = await readHolder(session, context.layout, key);
  if (holder === undefined) return null;
  const { record, waiters } = holder;
  const fencingToken = zxidOf(holder.stat.czxid);
  if (record === undefined) {
    return { key, holder: foreignHolder(holder.data), holdCount: 1, fencingToken, ttlRemainingMs: Number.POSITIVE_INFINITY, waiters };
  }
  // A latch node is never written after its create: a driver of this process that keeps it knows its count and lease.
  const kept = context.layout.writesNodes ? undefined : latchHoldAt(context.ensemble, lockPath(context.layout, key))?.node;
  const mine = context.held.byPath(holder.path) ?? (kept?.path === holder.path ? kept : undefined);
  const ttlRemainingMs = mine === undefined ? record.leaseMs : Math.max(0, Math.floor(mine.leaseEnd - performance.now()));
  const holdCount = context.layout.writesNodes || mine === undefined ? record.count : mine.count;
  return { key, holder: record.holder, holdCount, fencingToken, ttlRemainingMs, waiters };
}

/** The held keys under `prefix`: every lock path under the root whose key starts with it, read in key order until `limit` are held. */
export async function listLocks(context: LockContext, prefix: string, limit: number): Promise<LockState[]> {
  const session = await context.sessions.session();
  await catchUp(session);
  const keys = (await childrenOf(session, context.layout.root))
    .flatMap((segment) => decodeSegment(segment) ?? [])
    .filter((key) => key.startsWith(prefix))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const states: LockState[] = [];
  for (let start = 0; start < keys.length && states.length < limit; start += limit) {
    const batch = await Promise.all(keys.slice(start, start + limit).map((key) => holderState(context, session, key)));
    for (const state of batch) if (state !== null) states.push(state);
  }
  return states;
}

/** Deletes the node first in line, whoever holds it; the next waiter is woken by its watch. */
export async function forceReleaseLock(context: LockContext, key: string): Promise<boolean> {
  const session = await context.sessions.session();
  const holder = await readHolder(session, context.layout, key);
  if (holder === undefined) return false;
  try {
    await deleteNode(session, holder.path, -1);
  } catch (error) {
    if (isZkError(error, ZK_ERROR.noNode)) return false;
    throw error;
  }
  const mine = context.held.byPath(holder.path);
  if (mine !== undefined) context.held.delete(mine);
  context.held.left(session, holder.path);
  return true;
}
