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

/**
 * A worker coming back while a waiter elsewhere is queued: a provider from `elsewhere()` holds `key`; a worker on `here`,
 * then a waiter on another provider from `elsewhere()`, queue behind it (`queued(n)` resolves once n wait on the
 * server); once the hold is released, the worker comes back until the remote waiter is served. Returns who got the key
 * in which order ("local", "remote") and the worker's tokens.
 */
export async function comeBackWhileRemoteWaits(
  here: LockProvider,
  elsewhere: () => LockProvider,
  key: string,
  options: AcquireOptions,
  queued: (waiters: number) => Promise<unknown>,
): Promise<{ names: string[]; tokens: bigint[] }> {
  const names: string[] = [];
  const first = await elsewhere().acquire(key, options);
  const worker = here.acquire(key, options);
  await queued(1);
  const remote = elsewhere()
    .acquire(key, options)
    .then(async (won) => {
      names.push("remote");
      await won.release();
    });
  await queued(2);
  // The worker is handed the key from the line, with the remote waiter still queued behind it.
  await first.release();
  const tokens = await comeBackUntilServed(here, await worker, options, names);
  await remote;
  return { names, tokens };
}

/**
 * Passes `lock` on within `here` `passes` times: each time another acquire of `lock.key` waits (`waiting(n)` resolves
 * once n acquires wait there, the holder included), then the holder releases. Returns the last holder's lock.
 */
export async function passAlong(
  here: LockProvider,
  lock: Lock,
  options: AcquireOptions,
  passes: number,
  waiting: (acquires: number) => Promise<unknown>,
): Promise<Lock> {
  let held = lock;
  for (let i = 0; i < passes; i++) {
    const next = here.acquire(held.key, options);
    await waiting(i + 2);
    await held.release();
    held = await next;
  }
  return held;
}
