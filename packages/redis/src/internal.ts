/**
 * What `@distlock/redlock` and the workspace's bench and fault tools share with this package: connections,
 * scripts and waiting. Not part of the public API; it changes without notice.
 */

export type { ProcessCohort } from "./cohorts/process-cohort.js";
export type { CohortRelease, GiveBack } from "./cohorts/process-cohorts.js";
export { ProcessCohorts } from "./cohorts/process-cohorts.js";
export { createLockConnections, createRespConnection, type LockConnections } from "./connection/create-redis-connection.js";
export { LastConnectionError } from "./connection/last-connection-error.js";
export type { RespConnection } from "./connection/resp-connection.js";
export { createRedisLockDriver } from "./create-redis-lock-driver.js";
export { CLUSTER_SLOTS, keySlot } from "./keys/key-slot.js";
export { RedisKeyLayout } from "./keys/redis-key-layout.js";
export { type ScanPage, scanNames } from "./keys/scan-names.js";
export { keyPrefixSetting } from "./options/key-prefix-setting.js";
export type { ResolvedRedisLockOptions } from "./options/redis-lock-provider-options.js";
export { resolveRedisLockOptions } from "./options/resolve-redis-lock-options.js";
export { RedisLockDriver } from "./redis-lock-driver.js";
export type { RedisLockDriverConfig } from "./redis-lock-driver-config.js";
export { parseLockRecord } from "./scripts/lock-record.js";
export { LOCK_RENEW_SCRIPT, RENEW_SCRIPT } from "./scripts/lock-scripts.js";
export { KEEP_QUEUE, NOW_US, TOKEN_BLOCK } from "./scripts/lua-functions.js";
export { ACQUIRE_ALL_SCRIPT, RELEASE_ALL_SCRIPT } from "./scripts/multi-key-scripts.js";
export { LEAVE_QUEUE_SCRIPT, QUEUED_ACQUIRE_SCRIPT, QUEUED_FORCE_RELEASE_SCRIPT, QUEUED_RELEASE_SCRIPT } from "./scripts/queue-scripts.js";
export { RedisScript, type ScriptTarget } from "./scripts/redis-script.js";
export { HOLD_FUNCTIONS, OWNS_STORED_HOLD, ownerPrefix, parseStoredHold, storedHold } from "./scripts/stored-hold.js";
export { KEEP_LEASES, SEMAPHORE_HEAD } from "./semaphore/semaphore-scripts.js";
export { SEMAPHORE_RENEW_SCRIPT } from "./semaphore/semaphore-state-scripts.js";
export { type ChannelListener, ReleaseSubscriber, type ReleaseSubscriberConfig } from "./waiting/release-subscriber.js";
export { queueRefreshMs } from "./waiting/wait-in-server-line.js";
