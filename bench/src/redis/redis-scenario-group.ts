import { startRedis } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedScenario } from "./contended-scenario.js";
import { heldLocksScenario } from "./held-locks-scenario.js";
import { DISTLOCK, NODE_REDLOCK, RAW_FLOOR, REDIS_SEMAPHORE } from "./lock-subjects.js";
import { uncontendedScenario } from "./uncontended-scenario.js";

/** Every Redis scenario against one redis-server started for the run. */
export const REDIS_SCENARIOS: ScenarioGroup = {
  name: "Redis (one redis-server on 127.0.0.1)",
  async run(): Promise<BenchTable[]> {
    const server = await startRedis();
    try {
      return [
        await uncontendedScenario(server.url, [RAW_FLOOR, DISTLOCK, NODE_REDLOCK, REDIS_SEMAPHORE], RAW_FLOOR.name),
        ...(await contendedScenario(server.url, [DISTLOCK, NODE_REDLOCK, REDIS_SEMAPHORE], [4, 16, 64])),
        await heldLocksScenario(server.url, [DISTLOCK, REDIS_SEMAPHORE], DISTLOCK.name),
      ];
    } finally {
      await server.close();
    }
  },
};
