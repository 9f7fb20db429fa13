import type { Lock, LockProvider, MultiLock } from "@distlock/core";
import type { FencedResource } from "../fence/fenced-resource.js";
import { machineNow, toMachineTime } from "../history/history-event.js";
import { record } from "./parent-link.js";
import type { WorkerTask } from "./worker-protocol.js";

/** What a locker holds: a lock, a semaphore's permit (which lives like one), or a multi-key set (no token of its own). */
export type Held = Pick<Lock, "signal" | "validUntil" | "remainingMs" | "release"> & {
  readonly fencingToken?: bigint | null;
  readonly count?: number;
};

/** A token a grant came with: the row's one key's (no `key`), or that of one key of a multi-key set. */
export interface GrantedToken {
  readonly key?: string;
  readonly token: string;
}

/** How one locker takes its subject and works under it. */
export interface LockerRounds {
  /** The keys the next round asks for, in the order it asks (a multi-key set); absent: the task's one key. */
  ask?(): readonly string[];
  /** Waits for the key (or the keys `ask` chose), or for the locker's permits. */
  take(signal: AbortSignal, keys: readonly string[] | undefined): Promise<Held>;
  /** The tokens of what `take` returned. */
  tokens(held: Held): readonly GrantedToken[];
  /** One step of a critical section's work; each critical section takes two, a random time apart. */
  step(held: Held, hold: string): Promise<void>;
  /** The time between the steps ends early once the hold is lost (a semaphore holder's work honours its signal). */
  readonly honoursSignal: boolean;
}

/** The one token of a lock or a permit. */
const ownToken = (held: Held): readonly GrantedToken[] => [{ token: String(held.fencingToken) }];

/**
 * Writes to `lock`'s resource with its token, recording whether `holder` (the lock, or the multi-key set it belongs to)
 * had its signal aborted and its deadline as of the send.
 */
async function fencedWrite(task: WorkerTask, fence: FencedResource, lock: Lock, hold: string, holder: Held, key?: string): Promise<void> {
  const token = String(lock.fencingToken);
  const at = machineNow();
  const signalAborted = holder.signal.aborted;
  const validUntil = toMachineTime(holder.validUntil);
  const outcome = await fence.write(lock);
  record({ type: "write", worker: task.worker, at, hold, token, signalAborted, validUntil, ...outcome, ...(key === undefined ? {} : { key }) });
}

/**
 * A lock's rounds: each step writes to the fenced resource with the lock's token, even when its signal has aborted:
 * fencing is what must stop a stale writer.
 */
export function lockRounds(task: WorkerTask, provider: LockProvider, fence: FencedResource): LockerRounds {
  return {
    take: (signal) => provider.acquire(task.key, { ttlMs: task.ttlMs, waitMs: task.waitMs, signal }),
    tokens: ownToken,
    step: (held, hold) => fencedWrite(task, fence, held as Lock, hold, held),
    honoursSignal: false,
  };
}

/**
 * A semaphore's rounds: `count` permits at a time; each step acts (recorded) only while the permit's signal has not
 * aborted, as a holder must when nothing fences it.
 */
export function permitRounds(task: WorkerTask, provider: LockProvider, permits: number, count: number): LockerRounds {
  const semaphore = provider.semaphore(task.key, { permits });
  return {
    take: (signal) => semaphore.acquire({ count, ttlMs: task.ttlMs, waitMs: task.waitMs, signal }),
    tokens: ownToken,
    step: async (permit, hold) => {
      if (permit.signal.aborted) return;
      const validUntil = toMachineTime(permit.validUntil);
      record({ type: "act", worker: task.worker, at: machineNow(), hold, token: String(permit.fencingToken), validUntil });
    },
    honoursSignal: true,
  };
}

/** `size` of `keys`, picked at random, in a random order. */
function randomSet(keys: readonly string[], size: number): string[] {
  const shuffled = [...keys];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j] as string, shuffled[i] as string];
  }
  return shuffled.slice(0, size);
}

/**
 * A multi-key set's rounds: a random set of `setSize` keys (asked for in a random order: core must order them), taken
 * with `acquireAll`; each step writes to every key's resource with that key's token, even once the set's one signal has
 * aborted, which the writes record as the holder sees it (the set's signal and deadline).
 */
export function multiKeyRounds(
  task: WorkerTask,
  provider: LockProvider,
  fence: FencedResource,
  keys: readonly string[],
  setSize: readonly [number, number],
): LockerRounds {
  const [min, max] = setSize;
  return {
    ask: () => randomSet(keys, min + Math.floor(Math.random() * (max - min + 1))),
    take: (signal, asked) => provider.acquireAll(asked ?? [], { ttlMs: task.ttlMs, waitMs: task.waitMs, signal }),
    tokens: (held) => (held as MultiLock).locks.map((lock) => ({ key: lock.key, token: String(lock.fencingToken) })),
    step: async (held, hold) => {
      for (const lock of (held as MultiLock).locks) await fencedWrite(task, fence, lock, hold, held, lock.key);
    },
    honoursSignal: false,
  };
}
