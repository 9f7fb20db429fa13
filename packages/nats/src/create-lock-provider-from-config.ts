import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import { NatsLockProvider } from "./nats-lock-provider.js";
import type { NatsLockProviderOptions } from "./options/nats-lock-provider-options.js";

/** What `createLockProvider("nats://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): NatsLockProvider {
  // Unchecked until resolveNatsLockOptions reads them, which names any bad field `config.<name>`.
  const options = providerOptionsFromConfig(config) as unknown as NatsLockProviderOptions;
  return new NatsLockProvider(options, "config");
}
