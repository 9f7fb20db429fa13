export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { createRedlockLockDriver } from "./create-redlock-lock-driver.js";
export { RedlockNode, type RedlockNodeConfig } from "./nodes/redlock-node.js";
export { DEFAULT_REDLOCK_LOCK_OPTIONS, type RedlockLockProviderOptions, type RedlockLockSettings } from "./options/redlock-lock-provider-options.js";
export { LeaseBudget, type LeaseBudgetConfig } from "./quorum/lease-budget.js";
export { type NodeReply, NodeSet } from "./quorum/node-set.js";
export { RedlockLockDriver, type RedlockLockDriverConfig } from "./redlock-lock-driver.js";
export { RedlockLockProvider } from "./redlock-lock-provider.js";
export { QuorumReleaseWatch, type QuorumReleaseWatchConfig } from "./waiting/quorum-release-watch.js";
