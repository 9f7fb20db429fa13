import { fileURLToPath } from "node:url";
import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { BUILT_IN_BACKENDS } from "./built-in-backends.js";
import type { BackendModule, LockProviderFactory, LockUrlScheme } from "./config-types.js";

interface Registration {
  /** The factory, or the specifier of a module to import it from on first use. */
  factory: LockProviderFactory | string;
  schemes: readonly LockUrlScheme[];
  /** The backend's own deployment checks, if it has any (`BackendModule.checkDeployment`). */
  checkDeployment?: BackendModule["checkDeployment"];
}

const NAME = /^[a-z][a-z0-9-]*$/;
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

const backends = new Map<string, Registration>();
const schemeOwners = new Map<string, { backend: string; scheme: LockUrlScheme }>();

/**
 * Registers a backend under `name`, owning the URL `schemes` given: afterwards `createLockProvider("<scheme>://…")`,
 * `createLockProvider({ backend: name })`, `DISTLOCK_URL`, the CLI and the inversify module reach it. `factory` is the
 * provider factory, or a module specifier whose `createLockProviderFromConfig` is imported on first use.
 *
 * `checkDeployment`: the backend's own checks for `distlock doctor` (`BackendModule.checkDeployment`).
 *
 * Registering a name again replaces its factory, and its schemes when `schemes` is given. A scheme another backend
 * owns is refused with an `InvalidConfigError` naming it, and so is a malformed name or scheme.
 */
export function registerLockBackend(
  name: string,
  factory: BackendModule["createLockProviderFromConfig"] | string,
  options: { readonly schemes?: readonly (string | LockUrlScheme)[]; readonly checkDeployment?: BackendModule["checkDeployment"] } = {},
): void {
  if (typeof name !== "string" || !NAME.test(name)) throw new InvalidConfigError("backend", "must be a lower-case name such as nats or my-store");
  if (typeof factory !== "function" && (typeof factory !== "string" || factory === ""))
    throw new InvalidConfigError("factory", "must be a provider factory or the specifier of a module that exports createLockProviderFromConfig");
  const schemes = options.schemes === undefined ? (backends.get(name)?.schemes ?? []) : options.schemes.map(urlScheme);
  const seen = new Set<string>();
  for (const { scheme } of schemes) {
    const owner = schemeOwners.get(scheme)?.backend;
    if (owner !== undefined && owner !== name) throw new InvalidConfigError("schemes", `"${scheme}:" is already owned by the ${owner} backend`);
    if (seen.has(scheme)) throw new InvalidConfigError("schemes", `"${scheme}:" is listed twice`);
    seen.add(scheme);
  }
  for (const old of backends.get(name)?.schemes ?? []) schemeOwners.delete(old.scheme);
  for (const scheme of schemes) schemeOwners.set(scheme.scheme, { backend: name, scheme });
  if (options.checkDeployment !== undefined && typeof options.checkDeployment !== "function")
    throw new InvalidConfigError("checkDeployment", "must be a function");
  backends.set(name, { factory, schemes, ...(options.checkDeployment === undefined ? {} : { checkDeployment: options.checkDeployment }) });
}

/** The deployment checks `backend` was registered with (`registerLockBackend`'s `checkDeployment`, a loaded module's export). */
export function deploymentChecksOf(backend: string): BackendModule["checkDeployment"] | undefined {
  return backends.get(backend)?.checkDeployment;
}

/** The backend that owns `scheme` (lower case, without ":"), and how its URLs read. */
export function urlSchemeOwner(scheme: string): { readonly backend: string; readonly scheme: LockUrlScheme } | undefined {
  return schemeOwners.get(scheme);
}

/** Every registered scheme, for messages. */
export function registeredSchemes(): string[] {
  return [...schemeOwners.keys()];
}

/** The factory of a registered backend, importing its module on first use. */
export async function resolveBackendFactory(backend: string): Promise<LockProviderFactory> {
  const registration = backends.get(backend);
  if (registration === undefined) {
    throw new InvalidConfigError(
      "backend",
      `"${backend}" is not a known backend; use one of ${[...backends.keys()].join(", ")}, or register it (registerLockBackend, DISTLOCK_BACKENDS)`,
    );
  }
  if (typeof registration.factory === "function") return registration.factory;
  const module = await importBackendModule(registration.factory, "backend", `the ${backend} backend`);
  if (backends.get(backend) === registration) registration.factory = module.createLockProviderFromConfig;
  return module.createLockProviderFromConfig;
}

/**
 * Imports `specifier` and checks that it exports `createLockProviderFromConfig`; a missing package is an
 * `InvalidConfigError` on `field` that says what to install.
 */
export async function importBackendModule(specifier: string, field: string, what: string): Promise<BackendModule> {
  let module: Partial<BackendModule>;
  try {
    module = (await import(specifier)) as Partial<BackendModule>;
  } catch (error) {
    const path = specifier.startsWith("file:") ? fileURLToPath(specifier) : undefined;
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(path ?? specifier)) {
      const fix = path === undefined ? `npm install ${specifier}` : `no module at ${path}`;
      throw new InvalidConfigError(field, `${what} needs ${path ?? specifier}: ${fix}`, { cause: error });
    }
    throw error;
  }
  if (typeof module.createLockProviderFromConfig !== "function") {
    throw new InvalidConfigError(field, `${specifier} does not export createLockProviderFromConfig; check that its version matches @distlock/core`);
  }
  return module as BackendModule;
}

/** `given` checked and completed: the scheme in lower case, `hosts` defaulting to "many". */
export function urlScheme(given: string | LockUrlScheme): LockUrlScheme {
  const scheme = typeof given === "string" ? { scheme: given } : given;
  const name = typeof scheme?.scheme === "string" ? scheme.scheme.toLowerCase() : "";
  if (!SCHEME.test(name)) throw new InvalidConfigError("schemes", `${JSON.stringify(scheme?.scheme)} is not a URL scheme (letters, digits, + . -)`);
  if (scheme.hosts !== undefined && !["one", "many", "none"].includes(scheme.hosts))
    throw new InvalidConfigError("schemes", `hosts of "${name}:" must be "one", "many" or "none"`);
  return Object.freeze({ scheme: name, variant: scheme.variant, hosts: scheme.hosts ?? "many" });
}

for (const { name, factory, schemes } of BUILT_IN_BACKENDS) registerLockBackend(name, factory, { schemes });
