import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import type { ZooKeeperLockProviderOptions } from "./options/zookeeper-lock-provider-options.js";
import { ZooKeeperLockProvider } from "./zookeeper-lock-provider.js";

/** What `createLockProvider("zookeeper://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): ZooKeeperLockProvider {
  // Unchecked until resolveZooKeeperLockOptions reads them, which names any bad field `config.<name>`.
  const options = providerOptionsFromConfig(config) as unknown as ZooKeeperLockProviderOptions;
  return new ZooKeeperLockProvider(options, "config");
}
