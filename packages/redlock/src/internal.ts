/** What the workspace's bench shares with this package. Not part of the public API; it changes without notice. */

export { type NodeReply, RedlockNode, type RedlockNodeConfig } from "./connection/redlock-node.js";
export { createRedlockLockDriver } from "./create-redlock-lock-driver.js";
export type { ResolvedRedlockLockOptions } from "./options/redlock-lock-provider-options.js";
export { resolveRedlockLockOptions } from "./options/resolve-redlock-lock-options.js";
export { LeaseBudget, type LeaseBudgetConfig } from "./quorum/lease-budget.js";
export { NodeSet } from "./quorum/node-set.js";
export { RedlockLockDriver, type RedlockLockDriverConfig } from "./redlock-lock-driver.js";
export { QUORUM_ACQUIRE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "./scripts/quorum-lock-scripts.js";
export { QuorumReleaseWatch, type QuorumReleaseWatchConfig } from "./waiting/quorum-release-watch.js";
