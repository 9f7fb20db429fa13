/** What the workspace's fault tools share with this package. Not part of the public API; it changes without notice. */
export { EtcdLockDriver } from "./etcd-lock-driver.js";
export type { ResolvedEtcdLockOptions } from "./options/etcd-lock-provider-options.js";
export { resolveEtcdLockOptions } from "./options/resolve-etcd-lock-options.js";
