import type { Lock, LockProvider } from "@distlock/core";
import type { FencedResource } from "../fence/fenced-resource.js";
import { machineNow, toMachineTime } from "../history/history-event.js";
import { record } from "./parent-link.js";
import type { WorkerTask } from "./worker-protocol.js";

/** What a locker holds: a lock, or a semaphore's permit (which lives like one). */
export type Held = Pick<Lock, "fencingToken" | "signal" | "validUntil" | "remainingMs" | "release"> & { readonly count?: number };

/** How one locker takes its subject and works under it. */
export interface LockerRounds {
  /** Waits for the key, or for the locker's permits. */
  take(signal: AbortSignal): Promise<Held>;
  /** One step of a critical section's work; each critical section takes two, a random time apart. */
  step(held: Held, hold: string): Promise<void>;
  /** The time between the steps ends early once the hold is lost (a semaphore holder's work honours its signal). */
  readonly honoursSignal: boolean;
}

/**
 * A lock's rounds: each step writes to the fenced resource with the lock's token, even when its signal has aborted:
 * fencing is what must stop a stale writer.
 */
export function lockRounds(task: WorkerTask, provider: LockProvider, fence: FencedResource): LockerRounds {
  return {
    take: (signal) => provider.acquire(task.key, { ttlMs: task.ttlMs, waitMs: task.waitMs, signal }),
    step: async (held, hold) => {
      const lock = held as Lock;
      const token = String(lock.fencingToken);
      const at = machineNow();
      const signalAborted = lock.signal.aborted;
      const validUntil = toMachineTime(lock.validUntil);
      const outcome = await fence.write(lock);
      record({ type: "write", worker: task.worker, at, hold, token, signalAborted, validUntil, ...outcome });
    },
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
    step: async (permit, hold) => {
      if (permit.signal.aborted) return;
      const validUntil = toMachineTime(permit.validUntil);
      record({ type: "act", worker: task.worker, at: machineNow(), hold, token: String(permit.fencingToken), validUntil });
    },
    honoursSignal: true,
  };
}
