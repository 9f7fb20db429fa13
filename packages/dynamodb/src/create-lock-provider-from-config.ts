import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import { DynamoDbLockProvider } from "./dynamodb-lock-provider.js";
import type { DynamoDbLockProviderOptions } from "./options/dynamodb-lock-provider-options.js";

/** What `createLockProvider("dynamodb://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): DynamoDbLockProvider {
  // Unchecked until resolveDynamoDbLockOptions reads them, which names any bad field `config.<name>`.
  const options = providerOptionsFromConfig(config) as unknown as DynamoDbLockProviderOptions;
  return new DynamoDbLockProvider(options, "config");
}
