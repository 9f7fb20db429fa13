import { inspect } from "node:util";
import { type ContendReply, type ContendTask, type ContendWindow, DRAIN_MS } from "./contend-protocol.js";
import type { Acquisition } from "./contention-metrics.js";
import { importSubject, type OpenSubject } from "./lock-subject.js";
import { sharedClockMs, sleepUntil } from "./stats.js";
import { serveOneTask } from "./worker-processes.js";

/** How long a failed warm-up waits before it tries again. */
const WARM_UP_RETRY_MS = 50;
/** How long warm-up attempts may keep failing before the worker gives up. */
const WARM_UP_LIMIT_MS = 30_000;

/**
 * Takes and releases a key of its own once, so connecting and loading scripts happen before the window. A first call
 * on a loaded machine may time out (Redlock's per-node timeout is 250 ms): it is retried for a while.
 */
async function warmUp(open: OpenSubject, task: ContendTask): Promise<void> {
  const giveUpAt = sharedClockMs() + WARM_UP_LIMIT_MS;
  for (;;) {
    try {
      await (await open.acquire(`${task.key}:warm-up`, task.ttlMs))();
      return;
    } catch (error) {
      if (sharedClockMs() >= giveUpAt) throw error;
      await sleepUntil(sharedClockMs() + WARM_UP_RETRY_MS);
    }
  }
}

serveOneTask<ContendTask, ContendWindow, ContendReply>(async (task, ready) => {
  // What the worker is doing, told on stderr if its event loop drains before it replies (a call nothing kept alive
  // never settled). Registered here, not at the top: the parent imports this module too.
  let phase = `opening ${task.subject}`;
  process.on("beforeExit", () => {
    if (phase !== "replying") process.stderr.write(`bench worker ${process.pid}: nothing left to run while ${phase}; it never replied\n`);
  });
  const open = await (await importSubject(task.subjectsModule, task.subject)).open(task.target);
  phase = `warming up ${task.subject}`;
  await warmUp(open, task);
  phase = `waiting for the window (${task.subject})`;
  const window = await ready();
  await sleepUntil(window.warmUpAt);
  phase = `looping (${task.subject})`;
  const cpuAtStart = sleepUntil(window.startAt).then(() => process.cpuUsage());
  const acquisitions: Acquisition[] = [];
  const errors: string[] = [];
  let acquiring = 0;
  const loops = Promise.all(
    Array.from({ length: task.workers }, async (_, index) => {
      const worker = `${task.process}/${index}`;
      while (sharedClockMs() < window.endAt) {
        const calledAt = sharedClockMs();
        acquiring++;
        try {
          const release = await open.acquire(task.key, task.ttlMs).finally(() => acquiring--);
          const acquiredAt = sharedClockMs();
          const releasedAt = sharedClockMs();
          acquisitions.push([worker, calledAt, acquiredAt, releasedAt]);
          await release();
        } catch (error) {
          errors.push(inspect(error, { depth: 3, breakLength: Number.POSITIVE_INFINITY }));
        }
      }
    }),
  );
  const drained = await Promise.race([loops.then(() => true), sleepUntil(window.endAt + DRAIN_MS).then(() => false)]);
  const cpuUsed = process.cpuUsage(await cpuAtStart);
  const cpu = { us: cpuUsed.user + cpuUsed.system, acquisitions: acquisitions.filter(([, , acquiredAt]) => acquiredAt >= window.startAt).length };
  // With acquires still in flight, close() may wait for them: the process exits after replying instead.
  phase = `closing ${task.subject}`;
  if (drained) await open.close();
  phase = "replying";
  return { acquisitions, stuck: drained ? 0 : acquiring, errors: errors.length, firstError: errors[0], cpu };
});
