export { type FencingLock, fencingTokenOf } from "./fencing-token.js";
export { CONFLICT, type OptimisticResult, type OptimisticRetryOptions, retryOptimistically } from "./optimistic-retry.js";
