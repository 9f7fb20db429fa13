import { startRedisGroup } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { GROUP_COUNTERS_NOTE, GroupCounters } from "./group-counters.js";
import { DISTLOCK_REDLOCK_REPLAY } from "./quorum-replay-subject.js";
import {
  DISTLOCK_REDLOCK,
  DISTLOCK_REDLOCK_AT_MAJORITY,
  DISTLOCK_REDLOCK_UNFENCED,
  PARALLEL_FLOOR,
  SEMAPHORE_REDLOCK_MUTEX,
  SESAMECARE_REDLOCK,
} from "./redlock-subjects.js";
import { REDLOCK_TARGETS, REDLOCK_WORKER_COUNTS } from "./redlock-targets.js";

const MASTERS = 5;
const SUBJECTS_MODULE = new URL("./redlock-subjects.js", import.meta.url).href;

/** Every Redlock scenario against 5 independent redis-servers started for the run. */
export const REDLOCK_SCENARIOS: ScenarioGroup = {
  name: `Redlock (${MASTERS} independent redis-servers on 127.0.0.1)`,
  targets: REDLOCK_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const group = await startRedisGroup(MASTERS);
    const target = group.url;
    const system = `Redlock on ${MASTERS} masters`;
    try {
      const peers = [SESAMECARE_REDLOCK, SEMAPHORE_REDLOCK_MUTEX];
      return [
        ...(await uncontendedTables({
          scale,
          system,
          id: "redlock",
          target,
          subjects: [PARALLEL_FLOOR, DISTLOCK_REDLOCK, DISTLOCK_REDLOCK_AT_MAJORITY, DISTLOCK_REDLOCK_UNFENCED, DISTLOCK_REDLOCK_REPLAY, ...peers],
          baseline: PARALLEL_FLOOR.name,
          keyPrefix: "bench:redlock:uncontended:",
          // 10 rounds of 400: the ratio of two rows' medians over 5 rounds moved from 0.87x to 1.10x between runs.
          iterations: 4_000,
          warmUp: 200,
          rounds: 10,
          acquireLatency: true,
          counter: new GroupCounters(target),
          notes: [GROUP_COUNTERS_NOTE],
          pairedFor: DISTLOCK_REDLOCK.name,
        })),
        ...(await contendedSweep({
          scale,
          system,
          id: "redlock",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench:redlock:contended:",
          subjects: [DISTLOCK_REDLOCK, DISTLOCK_REDLOCK_UNFENCED, ...peers],
          workerCounts: REDLOCK_WORKER_COUNTS,
          counter: new GroupCounters(target),
          ratioOf: "acq/s",
          better: "higher",
          notes: [GROUP_COUNTERS_NOTE],
        })),
      ];
    } finally {
      await group.close();
    }
  },
};
