import { createLockProvider, type Lock, type LockProvider } from "@distlock/core";
import { contendForKeySets } from "./multi-key-contention.js";
import { contendReadWrite, enterHold } from "./read-write-contention.js";
import { contenderCount, type ParentMessage, type WorkerMessage, type WorkerTask } from "./worker-protocol.js";

let nextCallId = 0;
const pendingCalls = new Map<number, () => void>();
/** Resolves the "release" the test process sends to end an "rw-hold" task's hold. */
let releaseRequested: (() => void) | undefined;

function send(message: WorkerMessage): void {
  process.send?.(message);
}

function callWitness(method: "enter" | "exit", contender: string, fencingToken: bigint | null, count?: number, key?: string): Promise<void> {
  const id = nextCallId++;
  return new Promise((resolve) => {
    pendingCalls.set(id, resolve);
    send({ type: "call", id, method, contender, fencingToken, ...(count === undefined ? {} : { count }), ...(key === undefined ? {} : { key }) });
  });
}

async function contend(provider: LockProvider, task: Extract<WorkerTask, { kind: "contend" }>): Promise<number> {
  let acquisitions = 0;
  await Promise.all(
    Array.from({ length: task.contenders }, async (_, index) => {
      const contender = `${process.pid}/${index}`;
      for (let i = 0; i < task.iterations; i++) {
        const lock = await provider.acquire(task.key, { ttlMs: task.ttlMs });
        await callWitness("enter", contender, lock.fencingToken);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * task.maxHoldMs));
        await callWitness("exit", contender, null);
        await lock.release();
        acquisitions += 1;
      }
    }),
  );
  return acquisitions;
}

async function contendForPermits(provider: LockProvider, task: Extract<WorkerTask, { kind: "permit-contend" }>): Promise<number> {
  const semaphore = provider.semaphore(task.name, { permits: task.permits });
  let acquisitions = 0;
  await Promise.all(
    Array.from({ length: task.contenders }, async (_, index) => {
      const contender = `${process.pid}/${index}`;
      const count = contenderCount(index, task.permits);
      for (let i = 0; i < task.iterations; i++) {
        const permit = await semaphore.acquire({ ttlMs: task.ttlMs, count });
        await callWitness("enter", contender, null, count);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * task.maxHoldMs));
        await callWitness("exit", contender, null);
        await permit.release();
        acquisitions += 1;
      }
    }),
  );
  return acquisitions;
}

async function runPermitTask(provider: LockProvider, task: Extract<WorkerTask, { kind: "permit-hold" | "permit-enter" }>): Promise<void> {
  const permit = await provider.semaphore(task.name, { permits: task.permits }).acquire({ ttlMs: task.ttlMs, count: task.count });
  send({ type: "held", holdCount: permit.count, fencingToken: permit.fencingToken });
  if (task.kind === "permit-hold") return;
  await callWitness("enter", task.contender, null, task.count);
  await callWitness("exit", task.contender, null);
  await permit.release();
  await provider.close();
  send({ type: "released" });
  process.disconnect();
}

const ipcWitness = {
  enter: (contender: string, fencingToken: bigint | null, count: number) => callWitness("enter", contender, fencingToken, count),
  exit: (contender: string) => callWitness("exit", contender, null),
};

const keyWitness = {
  enter: (contender: string, fencingToken: bigint | null, count: number, key: string) => callWitness("enter", contender, fencingToken, count, key),
  exit: (contender: string, key: string) => callWitness("exit", contender, null, undefined, key),
};

/** Holds one side until the test process says "release"; the worker stays for another task. */
async function holdReadWrite(provider: LockProvider, task: Extract<WorkerTask, { kind: "rw-hold" }>): Promise<void> {
  const released = new Promise<void>((resolve) => {
    releaseRequested = resolve;
  });
  const hold = await provider.readWriteLock(task.name)[task.mode].acquire({ ttlMs: task.ttlMs });
  await enterHold(ipcWitness, task.contender, hold);
  send({ type: "held", holdCount: hold.holdCount, fencingToken: hold.fencingToken });
  await released;
  await ipcWitness.exit(task.contender);
  await hold.release();
  await provider.close();
  send({ type: "released" });
}

/** Runs a task that ends with the worker free for another: its provider closed, then "done" sent. */
async function contendThenClose(provider: LockProvider, contention: Promise<number>): Promise<void> {
  const acquisitions = await contention;
  await provider.close();
  send({ type: "done", acquisitions });
}

async function run(task: WorkerTask): Promise<void> {
  const provider = await createLockProvider(process.env.DISTLOCK_URL);
  if (task.kind === "rw-hold") return holdReadWrite(provider, task);
  if (task.kind === "rw-contend") return contendThenClose(provider, contendReadWrite(provider.readWriteLock(task.name), String(process.pid), ipcWitness, task));
  if (task.kind === "permit-contend") return contendThenClose(provider, contendForPermits(provider, task));
  if (task.kind === "permit-hold" || task.kind === "permit-enter") return runPermitTask(provider, task);
  if (task.kind === "multi-contend") return contendThenClose(provider, contendForKeySets(provider, String(process.pid), keyWitness, task));
  if (task.kind === "multi-hold") {
    const locks = await provider.acquireAll(task.keys, { ttlMs: task.ttlMs });
    send({ type: "held", holdCount: locks.locks.length, fencingToken: null });
    return;
  }
  if (task.kind === "contend") return contendThenClose(provider, contend(provider, task));
  const lock: Lock = await provider.acquire(task.key, { ttlMs: task.ttlMs, owner: task.owner });
  send({ type: "held", holdCount: lock.holdCount, fencingToken: lock.fencingToken });
  if (task.kind === "hold") return;
  await lock.release();
  await provider.close();
  send({ type: "released" });
  process.disconnect();
}

process.on("message", (message: ParentMessage) => {
  if (message.type === "release") {
    releaseRequested?.();
    return;
  }
  if (message.type === "reply") {
    pendingCalls.get(message.id)?.();
    pendingCalls.delete(message.id);
    return;
  }
  run(message.task).catch((error: unknown) => {
    send({ type: "failed", code: (error as { code?: string }).code, message: error instanceof Error ? error.message : String(error) });
  });
});
send({ type: "ready" });
