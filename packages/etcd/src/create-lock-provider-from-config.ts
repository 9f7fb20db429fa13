import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import { EtcdLockProvider } from "./etcd-lock-provider.js";
import type { EtcdLockProviderOptions } from "./options/etcd-lock-provider-options.js";

/**
 * What `createLockProvider` calls for `etcd://` and `etcds://` URLs: `etcd://user:pass@h1:2379,h2:2379/<prefix>?sessionTtlMs=10000`.
 * The config's options and URL are the provider's (options win over what the URL says), errors name `config.<name>`.
 */
export function createLockProviderFromConfig(config: ResolvedLockConfig): EtcdLockProvider {
  return new EtcdLockProvider(providerOptionsFromConfig(config) as EtcdLockProviderOptions, "config");
}
