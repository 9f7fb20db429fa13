import { startRedisGroup } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { redlockContendedScenario } from "./redlock-contended-scenario.js";
import { DISTLOCK_REDLOCK, DISTLOCK_REDLOCK_UNFENCED, PARALLEL_FLOOR, SEMAPHORE_REDLOCK_MUTEX, SESAMECARE_REDLOCK } from "./redlock-subjects.js";
import { redlockUncontendedScenario } from "./redlock-uncontended-scenario.js";

const MASTERS = 5;

/** Every Redlock scenario against 5 independent redis-servers started for the run. */
export const REDLOCK_SCENARIOS: ScenarioGroup = {
  name: `Redlock (${MASTERS} independent redis-servers on 127.0.0.1)`,
  async run(): Promise<BenchTable[]> {
    const group = await startRedisGroup(MASTERS);
    try {
      const peers = [SESAMECARE_REDLOCK, SEMAPHORE_REDLOCK_MUTEX];
      return [
        await redlockUncontendedScenario(group.url, [PARALLEL_FLOOR, DISTLOCK_REDLOCK, DISTLOCK_REDLOCK_UNFENCED, ...peers], PARALLEL_FLOOR.name),
        ...(await redlockContendedScenario(group.url, [DISTLOCK_REDLOCK, DISTLOCK_REDLOCK_UNFENCED, ...peers], [4, 16], DISTLOCK_REDLOCK.name)),
      ];
    } finally {
      await group.close();
    }
  },
};
