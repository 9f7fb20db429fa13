import { ETCD_SCENARIOS } from "./etcd/etcd-scenario-group.js";
import { runScenarioGroups } from "./harness/index.js";
import { REDIS_SCENARIOS } from "./redis/redis-scenario-group.js";
import { REDLOCK_SCENARIOS } from "./redlock/redlock-scenario-group.js";
import { SQL_SCENARIOS } from "./sql/sql-scenario-group.js";

const GROUPS = { redis: REDIS_SCENARIOS, redlock: REDLOCK_SCENARIOS, etcd: ETCD_SCENARIOS, sql: SQL_SCENARIOS };

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in GROUPS));
if (unknown.length > 0) throw new Error(`unknown scenario group ${unknown.join(", ")}; choose from ${Object.keys(GROUPS).join(", ")}`);
await runScenarioGroups(wanted.length === 0 ? Object.values(GROUPS) : wanted.map((name) => GROUPS[name as keyof typeof GROUPS]));
