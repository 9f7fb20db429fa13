// A bench worker for worker-processes.test.ts: gets ready after `readyAfterMs`, then reports when it was told to start.

import { sharedClockMs } from "../dist/harness/stats.js";
import { serveOneTask } from "../dist/harness/worker-processes.js";

serveOneTask(async ({ readyAfterMs, exitWithoutReply }, ready) => {
  await new Promise((resolve) => setTimeout(resolve, readyAfterMs));
  if (exitWithoutReply) process.exit(3);
  const readyAt = sharedClockMs();
  const start = await ready();
  return { readyAt, start, startedAt: sharedClockMs() };
});
