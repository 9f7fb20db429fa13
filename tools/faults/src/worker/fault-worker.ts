import { setTimeout as sleep } from "node:timers/promises";
import { createLockProvider, type LockProvider } from "@distlock/core";
import type { FencedResource } from "../fence/fenced-resource.js";
import { openFencedResource } from "../fence/open-fenced-resource.js";
import { lockerName, lockerOf, machineNow, toMachineTime } from "../history/history-event.js";
import { goOn, holdOn, running, whileHeldOn } from "./held-on.js";
import { type Held, type LockerRounds, lockRounds, multiKeyRounds, permitRounds } from "./locker-rounds.js";
import { codeOf, record, send } from "./parent-link.js";
import type { ParentMessage, WorkerTask } from "./worker-protocol.js";

// A fault worker: takes one key (a lock, or permits of a semaphore) or a set of keys in a loop until told to stop; each
// critical section works in two steps, a random time apart (see locker-rounds.ts), and every step goes to the parent as
// a history event.

const stopping = new AbortController();
const RELEASE_RETRY_MS = 100;

async function criticalSection(task: WorkerTask, rounds: LockerRounds, held: Held, hold: string): Promise<void> {
  const onLost = () => record({ type: "lost", worker: task.worker, at: machineNow(), hold, code: codeOf(held.signal.reason) });
  if (held.signal.aborted) onLost();
  else held.signal.addEventListener("abort", onLost, { once: true });
  let validUntil = held.validUntil;
  const watch = setInterval(() => {
    if (held.validUntil === validUntil) return;
    validUntil = held.validUntil;
    record({ type: "valid", worker: task.worker, at: machineNow(), hold, validUntil: toMachineTime(validUntil) });
  }, task.ttlMs / 10);
  try {
    running(hold);
    record({ type: "cs-start", worker: task.worker, at: machineNow(), hold });
    await rounds.step(held, hold);
    const [min, max] = task.holdMs;
    await sleep(min + Math.random() * (max - min), undefined, rounds.honoursSignal ? { signal: held.signal } : {}).catch(() => undefined);
    await whileHeldOn();
    await rounds.step(held, hold);
    record({ type: "cs-end", worker: task.worker, at: machineNow(), hold, validUntil: toMachineTime(held.validUntil) });
  } finally {
    // A "hold-on" that came after the wait point must not stretch the next critical section.
    running(undefined);
    goOn();
    clearInterval(watch);
  }
}

/**
 * Releases, retrying while the backend is unreachable: a hold whose release failed stays under core's
 * watchdog, so a caller that gave up after one failed release would keep the key until its process exits.
 */
async function release(task: WorkerTask, held: Held, hold: string): Promise<void> {
  for (;;) {
    try {
      await held.release();
      record({ type: "released", worker: task.worker, at: machineNow(), hold });
      return;
    } catch (error) {
      record({ type: "release-failed", worker: task.worker, at: machineNow(), hold, code: codeOf(error) });
      if (held.signal.aborted || held.remainingMs() === 0) return;
      await sleep(RELEASE_RETRY_MS);
    }
  }
}

async function loop(task: WorkerTask, rounds: LockerRounds): Promise<void> {
  for (let n = 0; !stopping.signal.aborted; n++) {
    const keys = rounds.ask?.();
    record({ type: "acquire-start", worker: task.worker, at: machineNow(), ...(keys === undefined ? {} : { keys }) });
    let held: Held;
    try {
      held = await rounds.take(stopping.signal, keys);
    } catch (error) {
      if (stopping.signal.aborted) break;
      record({ type: "acquire-failed", worker: task.worker, at: machineNow(), code: codeOf(error) });
      await sleep(task.thinkMs);
      continue;
    }
    const hold = `${task.worker}#${n}`;
    const count = held.count === undefined ? {} : { count: held.count };
    const at = machineNow();
    const validUntil = toMachineTime(held.validUntil);
    for (const { key, token } of rounds.tokens(held)) {
      record({ type: "acquired", worker: task.worker, at, hold, token, validUntil, ...count, ...(key === undefined ? {} : { key }) });
    }
    await criticalSection(task, rounds, held, hold);
    await release(task, held, hold);
    await sleep(task.thinkMs);
  }
}

/** The rounds of the process's `index`th locker, on the process's one provider (and fenced resource, for locks). */
function roundsOf(task: WorkerTask, provider: LockProvider, fence: FencedResource | undefined, index: number): LockerRounds {
  const { subject } = task;
  if (subject.kind === "semaphore") return permitRounds(task, provider, subject.permits, subject.counts[index % subject.counts.length] ?? 1);
  if (fence === undefined) throw new Error("a lock's rounds need the fenced resource");
  return subject.kind === "lock" ? lockRounds(task, provider, fence) : multiKeyRounds(task, provider, fence, subject.keys, subject.setSize);
}

async function run(task: WorkerTask): Promise<void> {
  const provider = await createLockProvider(task.url);
  const fence = task.subject.kind === "semaphore" ? undefined : await openFencedResource(task.subject.fence, task.url);
  try {
    // Lockers of one process contend on its one provider too, so a backend's in-process hand-offs meet the faults.
    await Promise.all(
      Array.from({ length: task.lockers }, async (_, index) => {
        const locker = { ...task, worker: lockerName(task.worker, index) };
        await loop(locker, roundsOf(locker, provider, fence, index));
        record({ type: "worker-stopped", worker: locker.worker, at: machineNow() });
      }),
    );
  } finally {
    await Promise.allSettled([provider.close(), fence?.close()]);
  }
}

process.on("message", (message: ParentMessage) => {
  switch (message.type) {
    case "stop":
      stopping.abort();
      goOn();
      return;
    case "hold-on":
      record({ type: "held-on", worker: lockerOf(message.hold), at: machineNow(), hold: message.hold, parked: holdOn(message.hold) });
      return;
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
