import { serveOneTask, sharedClockMs } from "../harness/index.js";
import { SQL_LOCK_SUBJECTS } from "./sql-lock-subjects.js";

/** What one contending process is told. */
export interface SqlContendTask {
  readonly subject: string;
  readonly url: string;
  /** Every worker of every process uses this key, or, when `keyPerProcess`, `<key>:<process>`. */
  readonly key: string;
  readonly keyPerProcess: boolean;
  readonly workers: number;
  readonly process: number;
  readonly ttlMs: number;
  /** Shared-clock times of the measured window. */
  readonly startAt: number;
  readonly endAt: number;
}

/** One acquisition: who, when it was acquired, when its release started (shared clock). */
export type SqlAcquisition = [worker: string, acquiredAt: number, releasedAt: number];

serveOneTask<SqlContendTask, SqlAcquisition[]>(async (task) => {
  const subject = SQL_LOCK_SUBJECTS[task.subject];
  if (subject === undefined) throw new Error(`unknown subject ${task.subject}`);
  const open = await subject.open(task.url);
  const key = task.keyPerProcess ? `${task.key}:${task.process}` : task.key;
  await (await open.acquire(`${key}:warm-up`, task.ttlMs))();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, task.startAt - sharedClockMs())));
  const acquisitions: SqlAcquisition[] = [];
  await Promise.all(
    Array.from({ length: task.workers }, async (_, index) => {
      const worker = `${task.process}/${index}`;
      while (sharedClockMs() < task.endAt) {
        const release = await open.acquire(key, task.ttlMs);
        const acquiredAt = sharedClockMs();
        await release();
        acquisitions.push([worker, acquiredAt, acquiredAt]);
      }
    }),
  );
  await open.close();
  return acquisitions;
});
