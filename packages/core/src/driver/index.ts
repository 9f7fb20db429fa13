/**
 * The backend-author API, semver-stable: what a backend implements (`LockDriver`, optionally `SemaphoreDriver`), the
 * provider that turns a driver into the full contract (`DriverLockProvider`), and how a backend takes its options and
 * registers its name and URL schemes. `docs/writing-a-backend.md` is the guide. The helpers distlock's own backends
 * share live in `@distlock/core/internal`, which is not semver-stable.
 */
export { registerLockBackend } from "../config/backend-registry.js";
export { type BackendSetting, backendSettings } from "../config/backend-setting.js";
export type { BackendModule, DeploymentCheck, LockUrl, LockUrlScheme, ResolvedLockConfig } from "../config/config-types.js";
export {
  type BackendOptionsSpec,
  providerOptionsFromConfig,
  type ResolvedBackendOptions,
  resolveBackendOptions,
} from "../config/resolve-backend-options.js";
export { InvalidConfigError } from "../errors/invalid-config-error.js";
export { PermitsMismatchError } from "../errors/permits-mismatch-error.js";
export { DriverLockProvider, type DriverLockProviderOptions } from "../provider/driver-lock-provider.js";
export type { LockCapabilities, LockState, SemaphoreState } from "../types.js";
export { type DriverAcquireRequest, type DriverGranted, type DriverRefused, type DriverRenewal, type DriverWait, onWaitAbort } from "./driver-attempt.js";
export { LatchedReleaseWatch } from "./latched-release-watch.js";
export type { LockDriver, ReleaseWatch } from "./lock-driver.js";
export type { DriverPermitRequest, SemaphoreDriver } from "./semaphore-driver.js";
