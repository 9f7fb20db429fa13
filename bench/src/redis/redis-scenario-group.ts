import { startRedis } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { heldLocksScenario } from "./held-locks-scenario.js";
import { DISTLOCK, FENCED_FLOOR, NODE_REDLOCK, RAW_FLOOR, REDIS_SEMAPHORE } from "./lock-subjects.js";
import { REDIS_TARGETS, REDIS_WORKER_COUNTS } from "./redis-targets.js";
import { DISTLOCK_LEAN_REPLAY, DISTLOCK_REPLAY } from "./replay-subject.js";
import { SERVER_COUNTERS_NOTE, ServerCounters } from "./server-counters.js";

const SUBJECTS_MODULE = new URL("./lock-subjects.js", import.meta.url).href;

/** Every Redis scenario against one redis-server started for the run. */
export const REDIS_SCENARIOS: ScenarioGroup = {
  name: "Redis (one redis-server on 127.0.0.1)",
  targets: REDIS_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startRedis();
    const target = server.url;
    try {
      return [
        ...(await uncontendedTables({
          scale,
          system: "Redis",
          id: "redis",
          target,
          subjects: [RAW_FLOOR, FENCED_FLOOR, DISTLOCK, DISTLOCK_REPLAY, DISTLOCK_LEAN_REPLAY, NODE_REDLOCK, REDIS_SEMAPHORE],
          baseline: RAW_FLOOR.name,
          keyPrefix: "bench:uncontended:",
          // 2,000 per turn: with 500, a turn lasted ~60 ms and the client CPU split (a few µs/op) drowned in
          // scheduler noise; measured distlock − replay at +27 µs/op with 500 and +12 with 2,000 in the same hour.
          // 12 rounds: one round's distlock − replay ranged from −30 to +75 µs/op on these shared cores.
          iterations: 24_000,
          warmUp: 1_000,
          rounds: 12,
          counter: new ServerCounters(target),
          notes: [SERVER_COUNTERS_NOTE],
          pairedFor: DISTLOCK.name,
        })),
        ...(await contendedSweep({
          scale,
          system: "Redis",
          id: "redis",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench:contended:",
          subjects: [DISTLOCK, NODE_REDLOCK, REDIS_SEMAPHORE],
          workerCounts: REDIS_WORKER_COUNTS,
          counter: new ServerCounters(target),
          ratioOf: "acq/s",
          better: "higher",
          notes: [SERVER_COUNTERS_NOTE],
        })),
        await heldLocksScenario(target, [DISTLOCK, REDIS_SEMAPHORE], DISTLOCK.name, scale),
      ];
    } finally {
      await server.close();
    }
  },
};
