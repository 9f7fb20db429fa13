import { createLockProviderFromConfig } from "./backend-module.test-support.js";

/** A backend module that forgot `lockBackend`: it cannot be registered by specifier. */
export { createLockProviderFromConfig };
