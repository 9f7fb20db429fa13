import { DriverLockProvider } from "@distlock/core/driver";
import { DynamoDbLockDriver } from "./dynamodb-lock-driver.js";
import type { DynamoDbLockProviderOptions } from "./options/dynamodb-lock-provider-options.js";
import { resolveDynamoDbLockOptions } from "./options/resolve-dynamodb-lock-options.js";

/** Reentrant, fenced locks on a DynamoDB table, leases judged without a server clock; waiters poll. */
export class DynamoDbLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting: the client connects on first use. */
  constructor(options: DynamoDbLockProviderOptions, optionsField = "options") {
    const resolved = resolveDynamoDbLockOptions(options, optionsField);
    super(new DynamoDbLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
