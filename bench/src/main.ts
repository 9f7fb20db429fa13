import { runScenarioGroups } from "./harness/index.js";
import { REDIS_SCENARIOS } from "./redis/redis-scenario-group.js";

await runScenarioGroups([REDIS_SCENARIOS]);
