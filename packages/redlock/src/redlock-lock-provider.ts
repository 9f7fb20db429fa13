import { DriverLockProvider } from "@distlock/core/driver";
import { createRedlockLockDriver } from "./create-redlock-lock-driver.js";
import type { RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";

/** Reentrant, fenced locks held by a majority of independent Redis masters (Redlock), waking waiters by pub/sub on every node. */
export class RedlockLockProvider extends DriverLockProvider {
  constructor(options: RedlockLockProviderOptions) {
    super(createRedlockLockDriver(options), { holderLabel: options.holderLabel });
  }
}
