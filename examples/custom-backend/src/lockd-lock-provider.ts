import { DriverLockProvider, providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
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

/** What `createLockProvider("lockd://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): LockdLockProvider {
  // Unchecked until resolveLockdLockOptions reads them, which names any bad field `config.<name>`.
  const options = providerOptionsFromConfig(config) as unknown as LockdLockProviderOptions;
  return new LockdLockProvider(options, "config");
}
