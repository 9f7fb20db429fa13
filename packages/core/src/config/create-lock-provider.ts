import type { LockProvider } from "../types.js";
import { backendModulesFrom, loadBackendModules } from "./backend-modules.js";
import { resolveBackendFactory } from "./backend-registry.js";
import { type LockProviderConfig, resolveLockConfig } from "./lock-config.js";

/**
 * Builds a provider from a URL or config object; with neither, from `DISTLOCK_URL`, else the embedded SQLite default.
 * The backend modules `DISTLOCK_BACKENDS` lists are registered first. Backend packages are imported on demand, so
 * core depends on no driver.
 */
export async function createLockProvider(config?: string | LockProviderConfig): Promise<LockProvider> {
  await loadBackendModules(backendModulesFrom(process.env));
  const resolved = resolveLockConfig(config);
  const factory = await resolveBackendFactory(resolved.backend);
  return factory(resolved);
}
