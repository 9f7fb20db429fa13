import { DriverLockProvider } from "@distlock/core/driver";
import { LockdLockDriver } from "./lockd-lock-driver.js";
import type { LockdLockProviderOptions } from "./options/lockd-lock-provider-options.js";
import { resolveLockdLockOptions } from "./options/resolve-lockd-lock-options.js";

/** Reentrant, fenced locks and FIFO counting semaphores on a lockd server; waiters wake on the server's release messages. */
export class LockdLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting: the connection opens on first use. */
  constructor(options: LockdLockProviderOptions, optionsField = "options") {
    const resolved = resolveLockdLockOptions(options, optionsField);
    super(new LockdLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
