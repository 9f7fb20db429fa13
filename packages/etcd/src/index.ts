export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { EtcdLockProvider } from "./etcd-lock-provider.js";
export { DEFAULT_ETCD_LOCK_OPTIONS, type EtcdLockProviderOptions, type EtcdTlsOptions } from "./options/etcd-lock-provider-options.js";
