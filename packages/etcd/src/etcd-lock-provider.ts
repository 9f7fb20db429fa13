import { DriverLockProvider } from "@distlock/core/driver";
import { EtcdLockDriver } from "./etcd-lock-driver.js";
import { type EtcdLockProviderOptions, resolveEtcdLockProviderOptions } from "./etcd-lock-provider-options.js";

/** Distributed locks on etcd v3, compatible with `etcdctl lock` and Go's `concurrency.Mutex` on the same prefix. */
export class EtcdLockProvider extends DriverLockProvider {
  constructor(options: EtcdLockProviderOptions = {}) {
    const resolved = resolveEtcdLockProviderOptions(options);
    super(new EtcdLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
