import type { LockCapabilities, LockProvider } from "@distlock/core";

/** Controls over the real server, so the suite can check lost-lock signalling. */
export interface ConformanceFaults {
  /** Makes the server stop answering (e.g. SIGSTOP) while leases keep running out. */
  pause(): Promise<void> | void;
  /** Undoes `pause`. */
  resume(): Promise<void> | void;
}

/** What `describeLockProvider` needs to know about a backend. */
export interface ConformanceOptions {
  /** Shown as "<name> conformance". */
  name: string;
  /** A fresh provider per call; the suite closes each one after its test. */
  create: () => LockProvider | Promise<LockProvider>;
  /** What the backend claims; decides which capability tests run or show as skipped. @default fencing: true, fifo: false */
  capabilities?: Partial<Pick<LockCapabilities, "fencing" | "fifo">>;
  /** URL a worker process builds an equivalent provider from (see `crossProcess`). */
  workerUrl?: string;
  /** Whether a worker built from `workerUrl` shares locks with this process. @default true when workerUrl is given */
  crossProcess?: boolean;
  /** Server controls for the lost-lock tests; they show as skipped without it. */
  faults?: ConformanceFaults;
  /** Lease used by expiry tests; at least the backend's minimum. @default 1000 */
  ttlMs?: number;
  /** Slack allowed on top of a lease before a test calls it late. @default 1500 */
  marginMs?: number;
}

/** Options with defaults applied. */
export interface ResolvedConformanceOptions extends ConformanceOptions {
  capabilities: { fencing: boolean; fifo: boolean };
  crossProcess: boolean;
  ttlMs: number;
  marginMs: number;
}

export function resolveConformanceOptions(options: ConformanceOptions): ResolvedConformanceOptions {
  return {
    ...options,
    capabilities: { fencing: true, fifo: false, ...options.capabilities },
    crossProcess: options.crossProcess ?? options.workerUrl !== undefined,
    ttlMs: options.ttlMs ?? 1000,
    marginMs: options.marginMs ?? 1500,
  };
}
