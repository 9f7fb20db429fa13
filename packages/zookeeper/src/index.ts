export { checkZooKeeperDeployment as checkDeployment } from "./connection/check-zookeeper-deployment.js";
export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { lockBackend } from "./lock-backend.js";
export {
  DEFAULT_ZOOKEEPER_LOCK_OPTIONS,
  type ResolvedZooKeeperLockOptions,
  type ZooKeeperLockProviderOptions,
} from "./options/zookeeper-lock-provider-options.js";
export type { ZooKeeperLockRecipe } from "./recipe/lock-layout.js";
export { ZooKeeperLockDriver } from "./zookeeper-lock-driver.js";
export { ZooKeeperLockProvider } from "./zookeeper-lock-provider.js";
