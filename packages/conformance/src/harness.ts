import { randomUUID } from "node:crypto";
import type { LockProvider } from "@distlock/core";
import { afterEach } from "vitest";
import type { ResolvedConformanceOptions } from "./suite-options.js";
import { Witness } from "./witness.js";
import { spawnWorker, type WitnessSink, type WorkerHandle } from "./worker-process.js";

/** Per-test helpers: providers and workers that are cleaned up after each test, and fresh keys. */
export interface Harness {
  readonly options: ResolvedConformanceOptions;
  /** A fresh provider, closed after the test. */
  provider(): Promise<LockProvider>;
  /** A key no other test uses. */
  key(label?: string): string;
  /** A worker process on `options.workerUrl`, killed after the test unless its task left it free for another test. */
  worker(witness?: WitnessSink): WorkerHandle;
}

/**
 * Workers of this test file left free by their tests, by URL and backend module, for later tests to take: a new worker
 * process costs about a second of CPU loading its backend, and a suite run starts hundreds.
 */
const freeWorkers = new Map<string, WorkerHandle[]>();
process.once("exit", () => {
  for (const worker of [...freeWorkers.values()].flat()) worker.kill();
});

function spareKeyOf(options: ResolvedConformanceOptions): string {
  return `${options.workerUrl} ${options.backendModule ?? ""}`;
}

/** Ends the free workers of a suite once it is done: their server may stop next, and a worker left connected to it idles on. */
export function killSpareWorkers(options: ResolvedConformanceOptions): void {
  // Emptied in place: the areas of another suite on the same URL hold this list too.
  for (const worker of freeWorkers.get(spareKeyOf(options))?.splice(0) ?? []) worker.kill();
}

/** Registers the cleanup hooks of one area; call inside its `describe`. */
export function useHarness(options: ResolvedConformanceOptions): Harness {
  const providers: LockProvider[] = [];
  const workers: WorkerHandle[] = [];
  const backendModules = options.backendModule === undefined ? [] : [options.backendModule];
  const spareKey = spareKeyOf(options);
  const spares = freeWorkers.get(spareKey) ?? [];
  freeWorkers.set(spareKey, spares);
  afterEach(async () => {
    for (const worker of workers.splice(0)) {
      if (worker.free) spares.push(worker);
      else worker.kill();
    }
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });
  return {
    options,
    async provider() {
      const provider = await options.create();
      providers.push(provider);
      return provider;
    },
    key: (label = "key") => `conformance:${label}:${randomUUID()}`,
    worker(witness: WitnessSink = new Witness()) {
      if (options.workerUrl === undefined) throw new Error("this test needs ConformanceOptions.workerUrl");
      let taken = spares.pop();
      while (taken !== undefined && !taken.free) {
        taken.kill();
        taken = spares.pop();
      }
      taken?.adopt(witness);
      const worker = taken ?? spawnWorker(options.workerUrl, witness, backendModules);
      workers.push(worker);
      return worker;
    },
  };
}
