import type { AcquireOptions, Lock, LockProvider } from "@distlock/core";

/** One grant of a contended key as a process-cohort test records it: who got it, with which token. */
export interface CohortGrant {
  readonly name: string;
  readonly token: bigint;
}

/** Acquires `key` on `side`, records the grant as `name` in `grants`, then releases it at once. */
export function takeCohortTurn(grants: CohortGrant[], name: string, side: LockProvider, key: string, options: AcquireOptions): Promise<void> {
  return side.acquire(key, options).then(async (lock) => {
    grants.push({ name, token: lock.fencingToken as bigint });
    await lock.release();
  });
}

/**
 * The worker holding `lock` releases it and acquires `lock.key` on `here` again at once, recording each grant as "local"
 * in `names`, until a waiter elsewhere has recorded its grant there (at most 20 turns); returns the tokens of the local
 * grants, the first one `lock`'s. The last lock is released.
 */
export async function comeBackUntilServed(here: LockProvider, lock: Lock, options: AcquireOptions, names: string[]): Promise<bigint[]> {
  let held = lock;
  const tokens = [held.fencingToken as bigint];
  names.push("local");
  while (!names.includes("remote") && names.length < 20) {
    const releasing = held.release();
    const next = here.acquire(held.key, options);
    await releasing;
    held = await next;
    if (names.includes("remote")) break;
    names.push("local");
    tokens.push(held.fencingToken as bigint);
  }
  await held.release();
  return tokens;
}
