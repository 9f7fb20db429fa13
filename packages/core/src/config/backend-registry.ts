import { InvalidConfigError } from "../errors/invalid-config-error.js";
import type { LockProvider } from "../types.js";
import type { ResolvedLockConfig } from "./lock-config.js";

/** Builds a provider from a resolved config; what every backend package exports as `createLockProviderFromConfig`. */
export type LockProviderFactory = (config: ResolvedLockConfig) => LockProvider | Promise<LockProvider>;

/** The module a backend package must expose. */
export interface BackendModule {
  createLockProviderFromConfig: LockProviderFactory;
}

const BACKEND_PACKAGES: Readonly<Record<string, string>> = {
  sqlite: "@distlock/sql",
  postgres: "@distlock/sql",
  mysql: "@distlock/sql",
  redis: "@distlock/redis",
  redlock: "@distlock/redlock",
  etcd: "@distlock/etcd",
};

const registered = new Map<string, LockProviderFactory>();

/** Adds (or replaces) a backend by name, e.g. a third-party one; takes precedence over the built-in table. */
export function registerLockBackend(backend: string, factory: LockProviderFactory): void {
  registered.set(backend, factory);
}

/** The factory of a backend: registered, else imported from its package on first use. */
export async function resolveBackendFactory(backend: string): Promise<LockProviderFactory> {
  const factory = registered.get(backend);
  if (factory !== undefined) return factory;
  const packageName = BACKEND_PACKAGES[backend];
  if (packageName === undefined) {
    throw new InvalidConfigError(
      "backend",
      `"${backend}" is not a known backend; use one of memory, ${Object.keys(BACKEND_PACKAGES).join(", ")}, or registerLockBackend()`,
    );
  }
  let module: Partial<BackendModule>;
  try {
    module = (await import(packageName)) as Partial<BackendModule>;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(packageName)) {
      throw new InvalidConfigError("backend", `the ${backend} backend needs ${packageName}: npm install ${packageName}`, { cause: error });
    }
    throw error;
  }
  if (typeof module.createLockProviderFromConfig !== "function") {
    throw new InvalidConfigError("backend", `${packageName} does not export createLockProviderFromConfig; check that its version matches @distlock/core`);
  }
  registered.set(backend, module.createLockProviderFromConfig);
  return module.createLockProviderFromConfig;
}
