import { DriverLockProvider } from "@distlock/core/driver";
import { EtcdLockDriver } from "./etcd-lock-driver.js";
import type { EtcdLockProviderOptions } from "./options/etcd-lock-provider-options.js";
import { resolveEtcdLockOptions } from "./options/resolve-etcd-lock-options.js";

/** Distributed locks on etcd v3, compatible with `etcdctl lock` and Go's `concurrency.Mutex` on the same prefix. */
export class EtcdLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting; connections are made lazily. */
  constructor(options: EtcdLockProviderOptions = {}, optionsField = "options") {
    const resolved = resolveEtcdLockOptions(options, optionsField);
    super(new EtcdLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
