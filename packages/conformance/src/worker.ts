import { createLockProvider, type Lock, type LockProvider } from "@distlock/core";
import type { ParentMessage, WorkerMessage, WorkerTask } from "./worker-protocol.js";

let nextCallId = 0;
const pendingCalls = new Map<number, () => void>();

function send(message: WorkerMessage): void {
  process.send?.(message);
}

function callWitness(method: "enter" | "exit", contender: string, fencingToken: bigint | null): Promise<void> {
  const id = nextCallId++;
  return new Promise((resolve) => {
    pendingCalls.set(id, resolve);
    send({ type: "call", id, method, contender, fencingToken });
  });
}

async function contend(provider: LockProvider, task: Extract<WorkerTask, { kind: "contend" }>): Promise<void> {
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
  send({ type: "done", acquisitions });
}

async function run(task: WorkerTask): Promise<void> {
  const provider = await createLockProvider(process.env.DISTLOCK_URL);
  if (task.kind === "contend") {
    await contend(provider, task);
    await provider.close();
    return;
  }
  const lock: Lock = await provider.acquire(task.key, { ttlMs: task.ttlMs, owner: task.owner });
  send({ type: "held", holdCount: lock.holdCount, fencingToken: lock.fencingToken });
  if (task.kind === "hold") return;
  await lock.release();
  await provider.close();
  send({ type: "released" });
  process.disconnect();
}

process.on("message", (message: ParentMessage) => {
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
