export type { FencingLock } from "../fencing-token.js";
export type { OptimisticResult, OptimisticRetryOptions } from "../optimistic-retry.js";
export { redisFenceKey } from "./fence-key.js";
export type { RedisClient, RedisCommand } from "./fenced-script.js";
export { type FencedRunSpec, fencedDel, fencedHset, fencedRun, fencedSet, type RedisFenceOptions } from "./fenced-writes.js";
export { type OptimisticTransactionSpec, optimisticTransaction } from "./optimistic-transaction.js";
