import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import type { LockProvider } from "../types.js";
import { type LockProviderFactory, resolveBackendFactory } from "./backend-registry.js";
import { type LockProviderConfig, type ResolvedLockConfig, resolveLockConfig } from "./lock-config.js";

/**
 * Builds a provider from a URL or config object; with neither, from `DISTLOCK_URL`, else the embedded
 * SQLite default. Backend packages are imported on demand, so core depends on no driver.
 */
export async function createLockProvider(config?: string | LockProviderConfig): Promise<LockProvider> {
  const resolved = resolveLockConfig(config);
  const factory = BUILT_IN[resolved.backend] ?? (await resolveBackendFactory(resolved.backend));
  return factory(resolved);
}

function createMemoryProviderFromConfig(config: ResolvedLockConfig): LockProvider {
  const unknown = Object.keys(config.options)[0];
  if (unknown !== undefined) throw new InvalidConfigError(`config.${unknown}`, "is not an option of the memory backend");
  return new MemoryLockProvider({ store: config.url?.path || "default", holderLabel: config.holderLabel });
}

const BUILT_IN: Readonly<Record<string, LockProviderFactory>> = { memory: createMemoryProviderFromConfig };
