import { CompareResult, CompareTarget, type Etcd3, type ICompare, type Range } from "etcd3";
import { holderRequest, tokenOf } from "./lock-holder.js";
import type { TxnPlan } from "./txn-plan.js";

/** How a guarded transaction ended. */
export type TxnOutcome =
  | { readonly committed: true; readonly revision: bigint }
  | { readonly committed: false; readonly fencedOut: true; readonly holderToken: bigint | null }
  | { readonly committed: false; readonly fencedOut: false };

/** The guard of a fenced transaction: the lock's keys, and the create revision its holder's member key must still have. */
export interface LockGuard {
  readonly lock: Range;
  readonly token: bigint;
}

/**
 * Commits `plan` in one etcd transaction if every mod revision check holds and, with a `guard`, the lock's holder is
 * still the member key created at the token's revision: `create_revision(member) == token`. A member key lives as long
 * as its hold (release, expiry and force-release delete it; a new hold gets a new revision even under the same name),
 * so the compare fails once the hold ended, whoever holds the lock since. The holder is read first, for its key's name.
 */
export async function commitTxn(etcd: Etcd3, plan: TxnPlan, guard?: LockGuard): Promise<TxnOutcome> {
  const lockCheck: ICompare[] = [];
  if (guard !== undefined) {
    const holder = (await etcd.kv.range(holderRequest(guard.lock))).kvs[0];
    const holderToken = tokenOf(holder);
    if (holder === undefined || holderToken !== guard.token) return { committed: false, fencedOut: true, holderToken };
    lockCheck.push({ key: holder.key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: String(guard.token) });
  }
  const response = await etcd.kv.txn({
    compare: [...lockCheck, ...plan.modChecks],
    success: plan.writes,
    failure: guard === undefined ? [] : [{ request_range: holderRequest(guard.lock) }],
  });
  if (response.succeeded) return { committed: true, revision: BigInt(response.header.revision) };
  const holderToken = tokenOf(response.responses[0]?.response_range.kvs[0]);
  if (guard === undefined || holderToken === guard.token) return { committed: false, fencedOut: false };
  return { committed: false, fencedOut: true, holderToken };
}
