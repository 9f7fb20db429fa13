import type { LockCapabilities, LockProvider } from "@distlock/core";
import { absoluteModuleSpecifier } from "@distlock/core/internal";

/** Controls over the real server, so the suite can check lost-lock signalling. */
export interface ConformanceFaults {
  /** Makes the server stop answering (e.g. SIGSTOP) while leases keep running out. */
  pause(): Promise<void> | void;
  /** Undoes `pause`. */
  resume(): Promise<void> | void;
}

/** How applications configure the backend, for the config area. */
export interface ConformanceConfig {
  /** The backend's constructor over the options `create` uses, with `options` given on top; must not connect. */
  construct(options: Readonly<Record<string, unknown>>): LockProvider;
  /** The backend's `DEFAULT_<BACKEND>_LOCK_OPTIONS`: every option with a default; the area gives each a bad value. */
  defaults: Readonly<Record<string, unknown>>;
  /** A URL of the server under test that `createLockProvider` takes. @default workerUrl */
  url?: string;
}

/** What `describeLockProvider` needs to know about a backend. */
export interface ConformanceOptions {
  /** Shown as "<name> conformance". */
  name: string;
  /** A fresh provider per call; the suite closes each one after its test. */
  create: () => LockProvider | Promise<LockProvider>;
  /**
   * What the backend claims; decides which capability tests run or show as skipped (`readWriteLock` follows `semaphore`,
   * as core derives it). @default fencing: true, fifo: false, listing: true, semaphore: false
   */
  capabilities?: Partial<Pick<LockCapabilities, "fencing" | "fifo" | "listing" | "semaphore">>;
  /** URL a worker process builds an equivalent provider from (see `crossProcess`). */
  workerUrl?: string;
  /**
   * For a backend that distlock does not ship: the module that registers it by specifier (a package name, or a file
   * path taken from the working directory) — it exports `createLockProviderFromConfig` and `lockBackend` (`BackendModule`).
   * The suite loads it in this process before the config area, and every worker process loads it through
   * `DISTLOCK_BACKENDS`, so `workerUrl` and `config.url` can use the backend's own scheme.
   */
  backendModule?: string;
  /** Whether a worker built from `workerUrl` shares locks with this process. @default true when workerUrl is given */
  crossProcess?: boolean;
  /**
   * Whether an explicit `owner` re-enters a key that another process holds. Session locks (SQL session mode) belong to
   * the connection that took them, so another process cannot join the hold: false shows that test as skipped. @default true
   */
  reentryAcrossProcesses?: boolean;
  /** How the backend is configured, for the config area; without it that area is left out. */
  config?: ConformanceConfig;
  /** Server controls for the lost-lock tests; they show as skipped without it. */
  faults?: ConformanceFaults;
  /** Lease used by expiry tests; at least the backend's minimum. @default 1000 */
  ttlMs?: number;
  /** Slack allowed on top of a lease before a test calls it late. @default 1500 */
  marginMs?: number;
}

/** Options with defaults applied. */
export interface ResolvedConformanceOptions extends ConformanceOptions {
  /** `backendModule` as a worker process can import it (a path made absolute). */
  backendModule: string | undefined;
  capabilities: { fencing: boolean; fifo: boolean; listing: boolean; semaphore: boolean; readWriteLock: boolean };
  config: (ConformanceConfig & { url: string }) | undefined;
  crossProcess: boolean;
  ttlMs: number;
  marginMs: number;
}

export function resolveConformanceOptions(options: ConformanceOptions): ResolvedConformanceOptions {
  const claimed = { fencing: true, fifo: false, listing: true, semaphore: false, ...options.capabilities };
  return {
    ...options,
    capabilities: { ...claimed, readWriteLock: claimed.semaphore },
    config: resolveConfig(options),
    backendModule: options.backendModule === undefined ? undefined : absoluteModuleSpecifier(options.backendModule),
    crossProcess: options.crossProcess ?? options.workerUrl !== undefined,
    ttlMs: options.ttlMs ?? 1000,
    marginMs: options.marginMs ?? 1500,
  };
}

function resolveConfig(options: ConformanceOptions): ResolvedConformanceOptions["config"] {
  if (options.config === undefined) return undefined;
  const url = options.config.url ?? options.workerUrl;
  if (url === undefined) throw new Error(`${options.name}: ConformanceOptions.config needs a url, or workerUrl`);
  return { ...options.config, url };
}
