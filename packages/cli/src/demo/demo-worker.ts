import { createLockProvider, elect, withLock } from "@distlock/core";
import { abortableSleep } from "@distlock/core/internal";
import type { DemoEvent } from "./demo-protocol.js";

const worker = Number(process.env.DEMO_WORKER);
const acks = new Map<number, () => void>();
let nextId = 0;

function report(event: DemoEvent): void {
  process.send?.(event);
}

function reportAndWait(event: { type: "enter"; worker: number; fencingToken: string } | { type: "exit"; worker: number }): Promise<void> {
  const id = nextId++;
  return new Promise((resolve) => {
    acks.set(id, resolve);
    report({ ...event, id });
  });
}

process.on("message", (id: number) => {
  acks.get(id)?.();
  acks.delete(id);
});

const provider = await createLockProvider(process.env.DISTLOCK_URL);

elect(provider, "demo:cron-dispatcher", {
  ttlMs: 1_500,
  retryDelayMs: 200,
  onElected: async (signal, { fencingToken }) => {
    const token = String(fencingToken);
    report({ type: "elected", worker, fencingToken: token });
    for (let job = 1; !signal.aborted; job++) {
      report({ type: "dispatched", worker, job, fencingToken: token });
      await abortableSleep(400, signal);
    }
    report({ type: "deposed", worker });
  },
});

for (;;) {
  await withLock(
    provider,
    "demo:ledger",
    async (lock) => {
      await reportAndWait({ type: "enter", worker, fencingToken: String(lock.fencingToken) });
      await abortableSleep(5 + Math.random() * 20);
      await reportAndWait({ type: "exit", worker });
    },
    { ttlMs: 2_000 },
  );
  await abortableSleep(Math.random() * 30);
}
