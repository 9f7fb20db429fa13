import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { AnyKysely } from "./any-kysely.js";
import { keyOrder, restoreOrder } from "./key-order.js";
import { isLockConflict } from "./lock-conflict.js";
import type { LockStatements, ReleaseOutcome } from "./lock-statements.js";

/** A set the database rolled back to break a deadlock: nothing was taken, and the keys are contended. */
const CONFLICT_REFUSAL: DriverRefused = Object.freeze({ acquired: false, retryAfterMs: 1 });

/**
 * One all-or-nothing attempt at a set (see `LockStatements.tryAcquireAll`), its rows locked in the global key order; a
 * deadlock or serialization conflict the database broke by rolling the set back is a refusal, never a failure.
 */
export async function acquireKeySet(
  statements: LockStatements,
  db: AnyKysely,
  requests: readonly DriverAcquireRequest[],
): Promise<DriverGranted[] | DriverRefused> {
  const order = keyOrder(requests.map(({ key }) => key));
  const result = await statements
    .tryAcquireAll(
      db,
      order.map((i) => requests[i] as DriverAcquireRequest),
    )
    .catch((error: unknown) => {
      if (isLockConflict(error)) return CONFLICT_REFUSAL;
      throw error;
    });
  return Array.isArray(result) ? restoreOrder(order, result) : result;
}

/**
 * One level of each of `keys` dropped for `ownerSecret` together (see `LockStatements.releaseAll`), rows locked in the
 * global key order. Should the database still break a conflict by rolling the set back, the keys are released one by
 * one, each in a statement of its own that locks one row and so cannot deadlock.
 */
export async function releaseKeySet(statements: LockStatements, db: AnyKysely, keys: readonly string[], ownerSecret: string): Promise<ReleaseOutcome[]> {
  const order = keyOrder(keys);
  const ordered = order.map((i) => keys[i] as string);
  const outcomes = await statements.releaseAll(db, ordered, ownerSecret).catch((error: unknown) => {
    if (isLockConflict(error)) return Promise.all(ordered.map((key) => statements.release(db, key, ownerSecret)));
    throw error;
  });
  return restoreOrder(order, outcomes);
}
