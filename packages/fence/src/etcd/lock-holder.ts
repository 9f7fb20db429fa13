import { InvalidArgumentError } from "@distlock/core";
import { type IKeyValue, type IRangeRequest, Range, SortOrder, SortTarget } from "etcd3";

/** The default `prefix` of `EtcdLockProviderOptions` (`@distlock/etcd`). */
export const DEFAULT_ETCD_LOCK_PREFIX = "distlock";

/**
 * The keys of lock `key`, as `@distlock/etcd` lays them out (and Go's `concurrency.NewMutex(session, "<prefix>/<key>")`):
 * one member key per contender below `<prefix>/<key>/`; the holder is the one created first, and its create revision
 * is the lock's fencing token. Computed here rather than imported, so `@distlock/fence/etcd` needs only etcd3 at run
 * time; a test checks it against real `EtcdLockProvider` locks.
 */
export function etcdLockRange(key: string, prefix = DEFAULT_ETCD_LOCK_PREFIX, field = "options.prefix"): Range {
  if (typeof prefix !== "string" || prefix === "" || prefix.endsWith("/")) {
    throw new InvalidArgumentError(field, `must be a non-empty string without a trailing "/", like the etcd provider's prefix; got ${JSON.stringify(prefix)}`);
  }
  return Range.prefix(`${prefix}/${key}/`);
}

/** Reads the member key that holds the lock now: the one created first in `lock`. */
export function holderRequest(lock: Range): IRangeRequest {
  return { key: lock.start, range_end: lock.end, sort_target: SortTarget.Create, sort_order: SortOrder.Ascend, limit: 1, keys_only: true };
}

/** The fencing token of the holder `holderRequest` found, or null when nobody holds the lock. */
export function tokenOf(holder: IKeyValue | undefined): bigint | null {
  return holder === undefined ? null : BigInt(holder.create_revision);
}
