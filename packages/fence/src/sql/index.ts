export type { FencingLock } from "../fencing-token.js";
export type { OptimisticResult, OptimisticRetryOptions } from "../optimistic-retry.js";
export { addFenceColumn, addVersionColumn, fenceColumnMigration } from "./fence-columns.js";
export { DEFAULT_FENCE_COLUMN } from "./fence-spec.js";
export { type FencedUpdate, fencedUpdate } from "./fenced-update.js";
export { type FencedUpsert, fencedUpsert } from "./fenced-upsert.js";
export { type OptimisticUpdate, optimisticUpdate } from "./optimistic-update.js";
export type { AnyDb } from "./sql-dialect.js";
export { DEFAULT_VERSION_COLUMN, type VersionedUpdate, versionedUpdate } from "./versioned-update.js";
