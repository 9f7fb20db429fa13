import { startRedis } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { DISTLOCK_SEMAPHORE, RAW_SEMAPHORE_FLOOR, REDIS_SEMAPHORE_SEMAPHORE, SEMAPHORE_PERMITS } from "./semaphore-subjects.js";
import { SEMAPHORE_TARGETS, SEMAPHORE_WORKER_COUNTS } from "./semaphore-targets.js";
import { SERVER_COUNTERS_NOTE, ServerCounters } from "./server-counters.js";

const SUBJECTS_MODULE = new URL("./semaphore-subjects.js", import.meta.url).href;

/** Counting semaphores with N = 4 permits on one redis-server started for the run: distlock against redis-semaphore's `Semaphore`. */
export const REDIS_SEMAPHORE_SCENARIOS: ScenarioGroup = {
  name: `Redis semaphores (N = ${SEMAPHORE_PERMITS}, one redis-server on 127.0.0.1)`,
  targets: SEMAPHORE_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startRedis();
    const target = server.url;
    try {
      return [
        ...(await uncontendedTables({
          scale,
          system: "Redis semaphore",
          id: "redis-semaphore",
          target,
          subjects: [RAW_SEMAPHORE_FLOOR, DISTLOCK_SEMAPHORE, REDIS_SEMAPHORE_SEMAPHORE],
          baseline: REDIS_SEMAPHORE_SEMAPHORE.name,
          keyPrefix: "bench:semaphore:uncontended:",
          // As the Redis lock group: 2,000 per turn, so the client CPU per op rises above the scheduler's noise.
          iterations: 24_000,
          warmUp: 1_000,
          rounds: 12,
          counter: new ServerCounters(target),
          notes: [SERVER_COUNTERS_NOTE],
          pairedFor: DISTLOCK_SEMAPHORE.name,
        })),
        ...(await contendedSweep({
          scale,
          system: "Redis semaphore",
          id: "redis-semaphore",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench:semaphore:contended:",
          subjects: [DISTLOCK_SEMAPHORE, REDIS_SEMAPHORE_SEMAPHORE],
          workerCounts: SEMAPHORE_WORKER_COUNTS,
          counter: new ServerCounters(target),
          ratioOf: "acq/s",
          better: "higher",
          notes: [SERVER_COUNTERS_NOTE],
        })),
      ];
    } finally {
      await server.close();
    }
  },
};
