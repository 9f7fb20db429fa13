import { serveOneTask, sharedClockMs } from "../harness/index.js";
import { REDLOCK_SUBJECTS } from "./redlock-subjects.js";

/** What one contending process is told. */
export interface RedlockContendTask {
  readonly subject: string;
  readonly url: string;
  readonly key: string;
  readonly workers: number;
  readonly process: number;
  readonly ttlMs: number;
  /** Shared-clock times of the measured window. */
  readonly startAt: number;
  readonly endAt: number;
}

/** One acquisition: who, when it was acquired, when its release started (shared clock). */
export type RedlockAcquisition = [worker: string, acquiredAt: number, releasedAt: number];

serveOneTask<RedlockContendTask, RedlockAcquisition[]>(async (task) => {
  const subject = REDLOCK_SUBJECTS[task.subject];
  if (subject === undefined) throw new Error(`unknown subject ${task.subject}`);
  const open = await subject.open(task.url);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, task.startAt - sharedClockMs())));
  const acquisitions: RedlockAcquisition[] = [];
  await Promise.all(
    Array.from({ length: task.workers }, async (_, index) => {
      const worker = `${task.process}/${index}`;
      while (sharedClockMs() < task.endAt) {
        const release = await open.acquire(task.key, task.ttlMs);
        const acquiredAt = sharedClockMs();
        const releasedAt = sharedClockMs();
        await release();
        acquisitions.push([worker, acquiredAt, releasedAt]);
      }
    }),
  );
  await open.close();
  return acquisitions;
});
