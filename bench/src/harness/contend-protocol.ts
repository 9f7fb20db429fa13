import type { Acquisition, Window } from "./contention-metrics.js";

/*
 * What the contended scenario and its worker processes (`contend-worker.ts`) tell each other. Its own module: importing
 * the worker would start serving a task in the importing process.
 */

/** What one contending process is told. */
export interface ContendTask {
  /** URL of the module that exports the subject. */
  readonly subjectsModule: string;
  readonly subject: string;
  readonly target: string;
  readonly key: string;
  readonly workers: number;
  readonly process: number;
  readonly ttlMs: number;
}

/** When the workers start looping, and the measured window within their loop. */
export interface ContendWindow extends Window {
  readonly warmUpAt: number;
}

/** What one contending process reports. */
export interface ContendReply {
  readonly acquisitions: readonly Acquisition[];
  /** Workers still inside acquire {@link DRAIN_MS} after the window (a livelock or a lost wake-up); 0 when all finished. */
  readonly stuck: number;
  /** Acquires or releases that threw (the loop goes on); the first one's description. */
  readonly errors: number;
  readonly firstError?: string;
  /** The process's CPU time (user + system, µs) from the window's start until its loops ended, and the acquisitions granted in it. */
  readonly cpu: { readonly us: number; readonly acquisitions: number };
}

/** How long after the window a process waits for the acquires in flight before it reports them as stuck and exits. */
export const DRAIN_MS = 5_000;
