import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import { LockdLockProvider } from "./lockd-lock-provider.js";
import type { LockdLockProviderOptions } from "./options/lockd-lock-provider-options.js";

/** What `createLockProvider("lockd://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): LockdLockProvider {
  // Unchecked until resolveLockdLockOptions reads them, which names any bad field `config.<name>`.
  const options = providerOptionsFromConfig(config) as unknown as LockdLockProviderOptions;
  return new LockdLockProvider(options, "config");
}
