import { DriverLockProvider } from "@distlock/core/driver";
import { NatsLockDriver } from "./nats-lock-driver.js";
import type { NatsLockProviderOptions } from "./options/nats-lock-provider-options.js";
import { resolveNatsLockOptions } from "./options/resolve-nats-lock-options.js";

/** distlock's lock provider on a NATS JetStream key-value bucket. */
export class NatsLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting: the connection opens on first use. */
  constructor(options: NatsLockProviderOptions, optionsField = "options") {
    const resolved = resolveNatsLockOptions(options, optionsField);
    super(new NatsLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
