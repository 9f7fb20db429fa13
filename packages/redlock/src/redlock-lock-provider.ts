import { DriverLockProvider } from "@distlock/core/driver";
import { createRedlockLockDriver } from "./create-redlock-lock-driver.js";
import type { RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
import { resolveRedlockLockOptions } from "./options/resolve-redlock-lock-options.js";

/** Reentrant, fenced locks held by a majority of independent Redis masters (Redlock), waking waiters by pub/sub on every node. */
export class RedlockLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting; connections are made lazily. */
  constructor(options: RedlockLockProviderOptions, optionsField = "options") {
    const resolved = resolveRedlockLockOptions(options, optionsField);
    super(createRedlockLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
