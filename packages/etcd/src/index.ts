export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { EtcdLockDriver } from "./etcd-lock-driver.js";
export { EtcdLockProvider } from "./etcd-lock-provider.js";
export {
  DEFAULT_ETCD_LOCK_OPTIONS,
  type EtcdLockProviderOptions,
  type EtcdTlsOptions,
  type ResolvedEtcdLockOptions,
} from "./etcd-lock-provider-options.js";
export { resolveEtcdLockOptions } from "./resolve-etcd-lock-options.js";
