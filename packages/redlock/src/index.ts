export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { DEFAULT_REDLOCK_LOCK_OPTIONS, type RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
export { RedlockLockProvider } from "./redlock-lock-provider.js";
