import { describe, expect, it } from "vitest";
import { sharedClockMs } from "./stats.js";
import { runInProcesses } from "./worker-processes.js";

const WORKER = new URL("../../test/barrier-worker.mjs", import.meta.url);

interface Reply {
  readonly readyAt: number;
  readonly start: { readonly at: number };
  readonly startedAt: number;
}

describe("runInProcesses", () => {
  it("starts every worker only once the slowest one is ready, with the same start for all", async () => {
    // Far apart, so that start-up times that differ by hundreds of ms on a loaded machine cannot close the gap.
    const readyAfterMs = [0, 400, 2_000];
    let startedAt = 0;
    const replies = await runInProcesses<{ readyAfterMs: number }, { at: number }, Reply>({
      script: WORKER,
      count: readyAfterMs.length,
      input: (index) => ({ readyAfterMs: readyAfterMs[index] as number }),
      start: () => {
        startedAt = sharedClockMs();
        return { at: startedAt };
      },
      readyTimeoutMs: 60_000,
      runTimeoutMs: 10_000,
    });
    const lastReady = Math.max(...replies.map((reply) => reply.readyAt));
    expect(replies.map((reply) => reply.start.at)).toEqual([startedAt, startedAt, startedAt]);
    expect(startedAt).toBeGreaterThanOrEqual(lastReady);
    for (const reply of replies) expect(reply.startedAt).toBeGreaterThanOrEqual(lastReady);
    expect(lastReady - Math.min(...replies.map((reply) => reply.readyAt))).toBeGreaterThanOrEqual(1_500);
  });

  it("fails, and stops the others, when a worker exits without replying", async () => {
    const run = runInProcesses({
      script: WORKER,
      count: 2,
      input: (index) => ({ readyAfterMs: 0, exitWithoutReply: index === 1 }),
      start: () => ({ at: 0 }),
      readyTimeoutMs: 60_000,
      runTimeoutMs: 10_000,
    });
    await expect(run).rejects.toThrow(/bench worker 1 exited \(3\) without replying/);
  });
});
