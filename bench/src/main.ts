import { runScenarioGroups } from "./harness/index.js";
import { REDIS_SCENARIOS } from "./redis/redis-scenario-group.js";
import { REDLOCK_SCENARIOS } from "./redlock/redlock-scenario-group.js";

await runScenarioGroups([REDIS_SCENARIOS, REDLOCK_SCENARIOS]);
