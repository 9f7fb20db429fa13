import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { importBackendModule, registerLockBackend } from "./backend-registry.js";

/** The environment variable that lists backend modules to load before a provider is built, separated by commas. */
export const BACKEND_MODULES_VARIABLE = "DISTLOCK_BACKENDS";

const loaded = new Map<string, Promise<void>>();

/** The module specifiers `DISTLOCK_BACKENDS` lists, empty entries left out. */
export function backendModulesFrom(env: NodeJS.ProcessEnv): string[] {
  return (env[BACKEND_MODULES_VARIABLE] ?? "")
    .split(",")
    .map((specifier) => specifier.trim())
    .filter((specifier) => specifier !== "");
}

/**
 * Imports each backend module once and registers it under the name and schemes of its `lockBackend` export. A
 * specifier is a package name, or a file path (relative paths are taken from the working directory) or file URL.
 * Errors are `InvalidConfigError`s naming `field`.
 */
export async function loadBackendModules(specifiers: readonly string[], field: string = BACKEND_MODULES_VARIABLE): Promise<void> {
  await Promise.all(
    specifiers.map((specifier) => {
      const target = importable(specifier);
      let loading = loaded.get(target);
      if (loading === undefined) {
        loading = register(target, specifier, field);
        loaded.set(target, loading);
        loading.catch(() => loaded.delete(target));
      }
      return loading;
    }),
  );
}

async function register(target: string, specifier: string, field: string): Promise<void> {
  const module = await importBackendModule(target, field, `the backend module ${specifier}`);
  const backend = module.lockBackend;
  if (typeof backend !== "object" || backend === null || typeof backend.name !== "string") {
    throw new InvalidConfigError(field, `${specifier} does not export lockBackend ({ name, schemes }), so it cannot be registered by name`);
  }
  const checks = module.checkDeployment;
  registerLockBackend(backend.name, module.createLockProviderFromConfig, {
    schemes: backend.schemes ?? [],
    ...(checks === undefined ? {} : { checkDeployment: checks }),
  });
}

/**
 * `specifier` as any process can import it: a relative file path made absolute against the working directory; a package
 * name, an absolute path or a file URL as it is. What is handed to another process (`DISTLOCK_BACKENDS`) goes through it.
 */
export function absoluteModuleSpecifier(specifier: string): string {
  return specifier.startsWith("./") || specifier.startsWith("../") ? resolve(specifier) : specifier;
}

function importable(specifier: string): string {
  const absolute = absoluteModuleSpecifier(specifier);
  return isAbsolute(absolute) ? pathToFileURL(absolute).href : absolute;
}
