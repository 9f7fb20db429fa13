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
  /** A worker process on `options.workerUrl`, killed after the test. */
  worker(witness?: WitnessSink): WorkerHandle;
}

/** Registers the cleanup hooks of one area; call inside its `describe`. */
export function useHarness(options: ResolvedConformanceOptions): Harness {
  const providers: LockProvider[] = [];
  const workers: WorkerHandle[] = [];
  afterEach(async () => {
    for (const worker of workers.splice(0)) worker.kill();
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
      const worker = spawnWorker(options.workerUrl, witness, options.backendModule === undefined ? [] : [options.backendModule]);
      workers.push(worker);
      return worker;
    },
  };
}
