import { DriverLockProvider } from "@distlock/core/driver";
import { resolveZooKeeperLockOptions } from "./options/resolve-zookeeper-lock-options.js";
import type { ZooKeeperLockProviderOptions } from "./options/zookeeper-lock-provider-options.js";
import { ZooKeeperLockDriver } from "./zookeeper-lock-driver.js";

/** Reentrant, fenced, FIFO locks on ZooKeeper that Apache Curator's `InterProcessMutex` shares on the same path. */
export class ZooKeeperLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting: the session opens on first use. */
  constructor(options: ZooKeeperLockProviderOptions = {}, optionsField = "options") {
    const resolved = resolveZooKeeperLockOptions(options, optionsField);
    super(new ZooKeeperLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
