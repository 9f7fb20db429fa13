import { runScenarioGroups } from "../harness/index.js";
import { ETCD_SCENARIOS } from "./etcd-scenario-group.js";

/** Runs only the etcd scenarios (`node bench/dist/etcd/run-etcd-bench.js`); `main.ts` runs every group. */
await runScenarioGroups([ETCD_SCENARIOS]);
