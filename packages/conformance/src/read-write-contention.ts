import type { ReadWriteHold, ReadWriteLock } from "@distlock/core";
import { contenderMode, modeWeight } from "./worker-protocol.js";

/** Where a contender reports its critical sections: a `Witness` here, or one in the test process over IPC. */
export interface ContentionWitness {
  enter(contender: string, fencingToken: bigint | null, count: number): void | Promise<void>;
  exit(contender: string): void | Promise<void>;
}

/** The witness entry of a read-write hold: a writer's fencing token (readers' grants overlap, so theirs are no register's order) and weight. */
export function enterHold(witness: ContentionWitness, contender: string, hold: ReadWriteHold): void | Promise<void> {
  return witness.enter(contender, hold.mode === "write" ? hold.fencingToken : null, modeWeight(hold.mode));
}

/** `contenders` loops of `iterations` read or write holds of `lock` (`contenderMode`), each reported to `witness`; resolves with the count. */
export async function contendReadWrite(
  lock: ReadWriteLock,
  prefix: string,
  witness: ContentionWitness,
  task: { contenders: number; iterations: number; ttlMs: number; maxHoldMs: number },
): Promise<number> {
  let acquisitions = 0;
  await Promise.all(
    Array.from({ length: task.contenders }, async (_, index) => {
      const contender = `${prefix}/${index}`;
      for (let i = 0; i < task.iterations; i++) {
        const hold = await lock[contenderMode(index, i)].acquire({ ttlMs: task.ttlMs });
        await enterHold(witness, contender, hold);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * task.maxHoldMs));
        await witness.exit(contender);
        await hold.release();
        acquisitions += 1;
      }
    }),
  );
  return acquisitions;
}
