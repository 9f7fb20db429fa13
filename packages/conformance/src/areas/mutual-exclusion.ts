import { describe, expect, it } from "vitest";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";
import { Witness } from "../witness.js";

const IN_PROCESS_CONTENDERS = 8;
const ITERATIONS = 25;
const MAX_HOLD_MS = 3;

async function contendInProcess(
  provider: () => Promise<import("@distlock/core").LockProvider>,
  key: string,
  witness: Witness,
  contenders: number,
  ttlMs: number,
) {
  await Promise.all(
    Array.from({ length: contenders }, async (_, index) => {
      const locks = await provider();
      for (let i = 0; i < ITERATIONS; i++) {
        const lock = await locks.acquire(key, { ttlMs });
        witness.enter(`local/${index}`, lock.fencingToken);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_HOLD_MS));
        witness.exit(`local/${index}`);
        await lock.release();
      }
    }),
  );
}

/** 1. At no instant do two owners hold a key, whether they share a process or not. */
export function describeMutualExclusion(options: ResolvedConformanceOptions): void {
  describe("mutual exclusion", () => {
    const harness = useHarness(options);
    const ttlMs = Math.max(options.ttlMs, 10_000);

    it(`keeps ${IN_PROCESS_CONTENDERS} contenders in one process exclusive over ${IN_PROCESS_CONTENDERS * ITERATIONS} acquisitions`, async () => {
      const witness = new Witness();
      await contendInProcess(() => harness.provider(), harness.key("mutex"), witness, IN_PROCESS_CONTENDERS, ttlMs);
      expect(witness.report()).toEqual({ overlaps: 0, staleWrites: 0, entries: IN_PROCESS_CONTENDERS * ITERATIONS });
    });

    it.skipIf(!options.crossProcess)("keeps contenders spread over three OS processes exclusive (fenced register and overlap witness agree)", async () => {
      const witness = new Witness();
      const key = harness.key("mutex-processes");
      const workers = [harness.worker(witness), harness.worker(witness)];
      for (const worker of workers) await worker.next("ready");
      for (const worker of workers) worker.run({ kind: "contend", key, contenders: 3, iterations: ITERATIONS, ttlMs, maxHoldMs: MAX_HOLD_MS });
      await Promise.all([contendInProcess(() => harness.provider(), key, witness, 2, ttlMs), ...workers.map((w) => w.next("done"))]);
      expect(witness.report()).toEqual({ overlaps: 0, staleWrites: 0, entries: 8 * ITERATIONS });
    });
  });
}
