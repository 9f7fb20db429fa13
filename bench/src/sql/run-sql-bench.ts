import { runScenarioGroups } from "../harness/index.js";
import { SQL_SCENARIOS } from "./sql-scenario-group.js";

/** `node bench/dist/sql/run-sql-bench.js`: the SQL group alone. */
await runScenarioGroups([SQL_SCENARIOS]);
