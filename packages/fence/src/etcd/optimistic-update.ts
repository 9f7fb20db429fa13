import { InvalidArgumentError } from "@distlock/core";
import type { Etcd3 } from "etcd3";
import type { FencingLock } from "../fencing-token.js";
import { CONFLICT, type OptimisticResult, type OptimisticRetryOptions, resolveRetryOptions, retryOptimistically } from "../optimistic-retry.js";
import { commitTxn, type LockGuard } from "./commit-txn.js";
import { checkClient, committedRevision, type EtcdFenceOptions, lockGuard } from "./fenced-txn.js";
import { checkKey, planTxn } from "./txn-plan.js";

/** Retry options, and optionally the lock that fences each commit. */
export interface OptimisticUpdateOptions extends OptimisticRetryOptions, EtcdFenceOptions {
  /** Commit only while this lock holds (as `fencedTxn`); a lost hold throws `FencedOutError`, never retried. */
  lock?: FencingLock;
}

/** The next value of a key given its current one (null: absent); null deletes it. */
export type EtcdUpdate = (current: Buffer | null) => string | Buffer | null | Promise<string | Buffer | null>;

/**
 * Reads `key` and its mod revision, computes the next value with `update`, and commits it only if the key's mod
 * revision is still the one read; otherwise starts over (with backoff; `VersionConflictError` after `maxAttempts`).
 * The value is the store revision of the commit.
 */
export async function optimisticUpdate(etcd: Etcd3, key: string, update: EtcdUpdate, options: OptimisticUpdateOptions = {}): Promise<OptimisticResult<bigint>> {
  const guard = options.lock === undefined ? undefined : lockGuard(options.lock, options);
  checkKey(key, "key");
  if (typeof update !== "function") throw new InvalidArgumentError("update", "must be a function from the current value to the next one");
  resolveRetryOptions(options);
  checkClient(etcd);
  const resource = `etcd key ${JSON.stringify(key)}`;
  return retryOptimistically(resource, options, async () => {
    const current = (await etcd.kv.range({ key: Buffer.from(key) })).kvs[0];
    const next = await update(current?.value ?? null);
    const read = current?.mod_revision ?? "0";
    const writes = next === null ? { deletes: [key], ifModRevision: { [key]: read } } : { puts: { [key]: next }, ifModRevision: { [key]: read } };
    return commitOrConflict(etcd, planTxn(writes, "update() result"), resource, guard);
  });
}

async function commitOrConflict(
  etcd: Etcd3,
  plan: ReturnType<typeof planTxn>,
  resource: string,
  guard: LockGuard | undefined,
): Promise<bigint | typeof CONFLICT> {
  const outcome = await commitTxn(etcd, plan, guard);
  if (!outcome.committed && !outcome.fencedOut) return CONFLICT;
  return committedRevision(outcome, resource, guard?.token ?? 0n);
}
