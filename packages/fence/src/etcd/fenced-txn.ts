import { FencedOutError, InvalidArgumentError, VersionConflictError } from "@distlock/core";
import type { Etcd3 } from "etcd3";
import { type FencingLock, fencingTokenOf } from "../fencing-token.js";
import { commitTxn, type LockGuard, type TxnOutcome } from "./commit-txn.js";
import { etcdLockRange } from "./lock-holder.js";
import { type EtcdWrites, planTxn } from "./txn-plan.js";

/** Where the lock's keys are. */
export interface EtcdFenceOptions {
  /** The `prefix` the lock's `EtcdLockProvider` was created with. @default "distlock" */
  prefix?: string;
}

/**
 * Commits `writes` in one etcd transaction only while `lock` still holds: its member key, whose create revision is the
 * lock's fencing token, still exists. Returns the store revision of the commit. Throws `FencedOutError` (with the
 * current holder's token, or null when nobody holds the lock) once the hold ended, and `VersionConflictError` when an
 * `ifModRevision` check failed while the hold lasted; either way nothing was written.
 */
export async function fencedTxn(etcd: Etcd3, lock: FencingLock, writes: EtcdWrites, options: EtcdFenceOptions = {}): Promise<{ revision: bigint }> {
  const guard = lockGuard(lock, options);
  const plan = planTxn(writes, "writes");
  checkClient(etcd);
  return { revision: committedRevision(await commitTxn(etcd, plan, guard), plan.resource, guard.token) };
}

/** The lock's token and keys, checked before any call. */
export function lockGuard(lock: FencingLock, options: EtcdFenceOptions): LockGuard {
  const token = fencingTokenOf(lock);
  if (typeof options !== "object" || options === null) throw new InvalidArgumentError("options", "must be { prefix? }");
  return { token, lock: etcdLockRange(lock.key, options.prefix) };
}

/** The commit's revision, or the error of a refused commit. */
export function committedRevision(outcome: TxnOutcome, resource: string, token: bigint): bigint {
  if (outcome.committed) return outcome.revision;
  if (outcome.fencedOut) throw new FencedOutError(resource, token, outcome.holderToken);
  throw new VersionConflictError(resource, 1);
}

export function checkClient(etcd: Etcd3): void {
  if (typeof etcd !== "object" || etcd === null || typeof etcd.kv?.txn !== "function") throw new InvalidArgumentError("etcd", "must be an etcd3 Etcd3 client");
}
