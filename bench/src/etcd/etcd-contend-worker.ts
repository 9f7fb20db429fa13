import { serveOneTask, sharedClockMs } from "../harness/index.js";
import { ETCD_LOCK_SUBJECTS } from "./etcd-lock-subjects.js";

/** What one contending process is told. */
export interface EtcdContendTask {
  readonly subject: string;
  readonly endpoints: readonly string[];
  readonly key: string;
  readonly workers: number;
  readonly process: number;
  readonly ttlMs: number;
  /** Shared-clock times of the measured window. */
  readonly startAt: number;
  readonly endAt: number;
}

/** One acquisition: who, when it was acquired, when its release started (shared clock). */
export type EtcdAcquisition = [worker: string, acquiredAt: number, releasedAt: number];

serveOneTask<EtcdContendTask, EtcdAcquisition[]>(async (task) => {
  const subject = ETCD_LOCK_SUBJECTS[task.subject];
  if (subject === undefined) throw new Error(`unknown subject ${task.subject}`);
  const open = await subject.open(task.endpoints);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, task.startAt - sharedClockMs())));
  const acquisitions: EtcdAcquisition[] = [];
  await Promise.all(
    Array.from({ length: task.workers }, async (_, index) => {
      const worker = `${task.process}/${index}`;
      while (sharedClockMs() < task.endAt) {
        const release = await open.acquire(task.key, task.ttlMs);
        const acquiredAt = sharedClockMs();
        await release();
        acquisitions.push([worker, acquiredAt, acquiredAt]);
      }
    }),
  );
  await open.close();
  return acquisitions;
});
