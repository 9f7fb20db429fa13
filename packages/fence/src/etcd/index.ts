export type { FencingLock } from "../fencing-token.js";
export type { OptimisticResult, OptimisticRetryOptions } from "../optimistic-retry.js";
export { type EtcdFenceOptions, fencedTxn } from "./fenced-txn.js";
export { DEFAULT_ETCD_LOCK_PREFIX } from "./lock-holder.js";
export { type EtcdUpdate, type OptimisticUpdateOptions, optimisticUpdate } from "./optimistic-update.js";
export type { EtcdWrites } from "./txn-plan.js";
