export { addFenceColumn, addVersionColumn, fenceColumnMigration } from "./fence-columns.js";
export { DEFAULT_FENCE_COLUMN } from "./fence-spec.js";
export { type FencedUpdate, fencedUpdate } from "./fenced-update.js";
export { type FencedUpsert, fencedUpsert } from "./fenced-upsert.js";
export { type OptimisticUpdate, optimisticUpdate } from "./optimistic-update.js";
export { DEFAULT_VERSION_COLUMN, type VersionedUpdate, versionedUpdate } from "./versioned-update.js";
