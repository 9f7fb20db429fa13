import type { LockProvider } from "@distlock/core";
import { randomKeySet, type WorkerTask } from "./worker-protocol.js";

/** Where a multi-key contender reports each key's critical section: a `KeyWitnesses` here, or one over IPC. */
export interface KeyWitness {
  enter(contender: string, fencingToken: bigint | null, count: number, key: string): Promise<void> | void;
  exit(contender: string, key: string): Promise<void> | void;
}

type MultiContendTask = Omit<Extract<WorkerTask, { kind: "multi-contend" }>, "kind">;

/**
 * `task.contenders` loops that each take random sets of 2–3 of `task.keys`, named in random order, and report every key
 * of the set to `witness` while they hold it; each acquire is bounded by `task.waitMs`, so a deadlock fails the run.
 * Resolves with the number of sets held.
 */
export async function contendForKeySets(provider: LockProvider, label: string, witness: KeyWitness, task: MultiContendTask): Promise<number> {
  let acquisitions = 0;
  await Promise.all(
    Array.from({ length: task.contenders }, async (_, index) => {
      const contender = `${label}/${index}`;
      for (let i = 0; i < task.iterations; i++) {
        const locks = await provider.acquireAll(randomKeySet(task.keys), { ttlMs: task.ttlMs, waitMs: task.waitMs });
        for (const lock of locks.locks) await witness.enter(contender, lock.fencingToken, 1, lock.key);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * task.maxHoldMs));
        for (const lock of locks.locks) await witness.exit(contender, lock.key);
        await locks.release();
        acquisitions += 1;
      }
    }),
  );
  return acquisitions;
}
