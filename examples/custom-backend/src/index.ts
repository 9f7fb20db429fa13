export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { lockBackend } from "./lock-backend.js";
export { LockdLockDriver } from "./lockd-lock-driver.js";
export { LockdLockProvider } from "./lockd-lock-provider.js";
export { DEFAULT_LOCKD_LOCK_OPTIONS, type LockdLockProviderOptions } from "./options/lockd-lock-provider-options.js";
export { type LockdServer, type StartLockdServerOptions, startLockdServer } from "./server/start-lockd-server.js";
