import { setTimeout as sleep } from "node:timers/promises";
import { createLockProvider, type Lock, LockError, type LockProvider } from "@distlock/core";
import type { FencedResource } from "../fence/fenced-resource.js";
import { openFencedResource } from "../fence/open-fenced-resource.js";
import { type HistoryEvent, lockerName, machineNow, toMachineTime } from "../history/history-event.js";
import type { ParentMessage, WorkerMessage, WorkerTask } from "./worker-protocol.js";

// A fault worker: acquires one key in a loop until told to stop; each critical section writes to the
// fenced resource with its token twice, a random time apart, and every step goes to the parent as a
// history event. It always writes, even when its signal has aborted: fencing is what must stop a stale writer.

const stopping = new AbortController();
const RELEASE_RETRY_MS = 100;

/** The hold whose critical section is running, and the wait the parent put into it (until "go-on" or "stop"). */
let runningHold: string | undefined;
let heldOn: { readonly until: Promise<void>; readonly goOn: () => void } | undefined;

function holdOn(hold: string): void {
  if (runningHold !== hold || heldOn !== undefined) return;
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  heldOn = { until, goOn: release };
}

function goOn(): void {
  heldOn?.goOn();
  heldOn = undefined;
}

function send(message: WorkerMessage, then?: () => void): void {
  if (process.connected && process.send !== undefined) process.send(message, () => then?.());
  else then?.();
}

function record(event: HistoryEvent): void {
  send({ type: "event", event });
}

const codeOf = (error: unknown): string => (LockError.is(error) ? error.code : error instanceof Error ? error.name : "UNKNOWN");

async function write(task: WorkerTask, fence: FencedResource, lock: Lock, hold: string): Promise<void> {
  const token = String(lock.fencingToken);
  const at = machineNow();
  const signalAborted = lock.signal.aborted;
  const validUntil = toMachineTime(lock.validUntil);
  const outcome = await fence.write(lock);
  record({ type: "write", worker: task.worker, at, hold, token, signalAborted, validUntil, ...outcome });
}

async function criticalSection(task: WorkerTask, fence: FencedResource, lock: Lock, hold: string): Promise<void> {
  const onLost = () => record({ type: "lost", worker: task.worker, at: machineNow(), hold, code: codeOf(lock.signal.reason) });
  if (lock.signal.aborted) onLost();
  else lock.signal.addEventListener("abort", onLost, { once: true });
  let validUntil = lock.validUntil;
  const watch = setInterval(() => {
    if (lock.validUntil === validUntil) return;
    validUntil = lock.validUntil;
    record({ type: "valid", worker: task.worker, at: machineNow(), hold, validUntil: toMachineTime(validUntil) });
  }, task.ttlMs / 10);
  try {
    runningHold = hold;
    record({ type: "cs-start", worker: task.worker, at: machineNow(), hold });
    await write(task, fence, lock, hold);
    const [min, max] = task.holdMs;
    await sleep(min + Math.random() * (max - min));
    await heldOn?.until;
    await write(task, fence, lock, hold);
    record({ type: "cs-end", worker: task.worker, at: machineNow(), hold, validUntil: toMachineTime(lock.validUntil) });
  } finally {
    // A "hold-on" that came after the wait point must not stretch the next critical section.
    runningHold = undefined;
    goOn();
    clearInterval(watch);
  }
}

/**
 * Releases, retrying while the backend is unreachable: a hold whose release failed stays under core's
 * watchdog, so a caller that gave up after one failed release would keep the key until its process exits.
 */
async function release(task: WorkerTask, lock: Lock, hold: string): Promise<void> {
  for (;;) {
    try {
      await lock.release();
      record({ type: "released", worker: task.worker, at: machineNow(), hold });
      return;
    } catch (error) {
      record({ type: "release-failed", worker: task.worker, at: machineNow(), hold, code: codeOf(error) });
      if (lock.signal.aborted || lock.remainingMs() === 0) return;
      await sleep(RELEASE_RETRY_MS);
    }
  }
}

async function loop(task: WorkerTask, provider: LockProvider, fence: FencedResource): Promise<void> {
  for (let n = 0; !stopping.signal.aborted; n++) {
    record({ type: "acquire-start", worker: task.worker, at: machineNow() });
    let lock: Lock;
    try {
      lock = await provider.acquire(task.key, { ttlMs: task.ttlMs, waitMs: task.waitMs, signal: stopping.signal });
    } catch (error) {
      if (stopping.signal.aborted) break;
      record({ type: "acquire-failed", worker: task.worker, at: machineNow(), code: codeOf(error) });
      await sleep(task.thinkMs);
      continue;
    }
    const hold = `${task.worker}#${n}`;
    record({ type: "acquired", worker: task.worker, at: machineNow(), hold, token: String(lock.fencingToken), validUntil: toMachineTime(lock.validUntil) });
    await criticalSection(task, fence, lock, hold);
    await release(task, lock, hold);
    await sleep(task.thinkMs);
  }
}

async function run(task: WorkerTask): Promise<void> {
  const provider = await createLockProvider(task.url);
  const fence = await openFencedResource(task.fence, task.url);
  try {
    // Lockers of one process contend on its one provider too, so a backend's in-process hand-offs meet the faults.
    await Promise.all(
      Array.from({ length: task.lockers }, async (_, index) => {
        const locker = { ...task, worker: lockerName(task.worker, index) };
        await loop(locker, provider, fence);
        record({ type: "worker-stopped", worker: locker.worker, at: machineNow() });
      }),
    );
  } finally {
    await Promise.allSettled([provider.close(), fence.close()]);
  }
}

process.on("message", (message: ParentMessage) => {
  switch (message.type) {
    case "stop":
      stopping.abort();
      goOn();
      return;
    case "hold-on":
      return holdOn(message.hold);
    case "go-on":
      return goOn();
    case "start":
      run(message.task).then(
        () => send({ type: "done" }, () => process.exit(0)),
        (error: unknown) => send({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () => process.exit(1)),
      );
  }
});
send({ type: "ready" });
