export { checkNatsDeployment as checkDeployment } from "./connection/check-nats-deployment.js";
export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { lockBackend } from "./lock-backend.js";
export { NatsLockDriver } from "./nats-lock-driver.js";
export { NatsLockProvider } from "./nats-lock-provider.js";
export {
  DEFAULT_NATS_LOCK_OPTIONS,
  type NatsCredentials,
  type NatsLockProviderOptions,
  type NatsTlsOptions,
  type ResolvedNatsLockOptions,
} from "./options/nats-lock-provider-options.js";
