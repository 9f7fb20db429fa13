import type { LockProvider, Semaphore } from "@distlock/core";
import { until } from "../expectations.js";
import type { Witness } from "../witness.js";
import { contenderCount } from "../worker-protocol.js";

/** The permits of the semaphores the area contends on. */
export const PERMITS = 3;
/** Acquisitions per contender. */
export const ITERATIONS = 20;
/** The longest a contender holds its permits. */
export const MAX_HOLD_MS = 4;

/** Resolves once the server shows at least `count` waiters in the semaphore's line. */
export function queuedFor(semaphore: Semaphore, count: number): Promise<void> {
  return until(`${count} waiter(s) in line for semaphore ${semaphore.name}`, async () => ((await semaphore.inspect())?.waiters ?? 0) >= count);
}

/** `contenders` acquirers in this process, each taking 1 or 2 permits `ITERATIONS` times, reporting to `witness`. */
export async function contendInProcess(provider: () => Promise<LockProvider>, name: string, witness: Witness, contenders: number, ttlMs: number) {
  await Promise.all(
    Array.from({ length: contenders }, async (_, index) => {
      const semaphore = (await provider()).semaphore(name, { permits: PERMITS });
      const count = contenderCount(index, PERMITS);
      for (let i = 0; i < ITERATIONS; i++) {
        const permit = await semaphore.acquire({ ttlMs, count });
        witness.enter(`local/${index}`, null, count);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_HOLD_MS));
        witness.exit(`local/${index}`);
        await permit.release();
      }
    }),
  );
}
