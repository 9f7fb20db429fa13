import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { ETCD_SCENARIOS } from "./etcd/etcd-scenario-group.js";
import { collectMachineInfo, runScenarioGroups, sweepPlots, writeBenchReport } from "./harness/index.js";
import { REDIS_SCENARIOS } from "./redis/redis-scenario-group.js";
import { REDLOCK_SCENARIOS } from "./redlock/redlock-scenario-group.js";
import { SQL_SCENARIOS } from "./sql/sql-scenario-group.js";

const GROUPS = { redis: REDIS_SCENARIOS, redlock: REDLOCK_SCENARIOS, etcd: ETCD_SCENARIOS, sql: SQL_SCENARIOS };
const REPORT_DIR = fileURLToPath(new URL("../../docs/benchmarks/", import.meta.url));

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in GROUPS));
if (unknown.length > 0) throw new Error(`unknown scenario group ${unknown.join(", ")}; choose from ${Object.keys(GROUPS).join(", ")}`);
const machine = await collectMachineInfo();
const startedAt = new Date();
const started = performance.now();
const groups = await runScenarioGroups(wanted.length === 0 ? Object.values(GROUPS) : wanted.map((name) => GROUPS[name as keyof typeof GROUPS]));
if (wanted.length === 0) {
  const report = {
    command: "npm run bench",
    startedAt,
    durationS: (performance.now() - started) / 1000,
    machine,
    loadAtEnd: loadavg(),
    groups,
    plots: sweepPlots(groups.flatMap((group) => group.tables)),
  };
  for (const path of writeBenchReport(report, REPORT_DIR)) console.log(`wrote ${path}`);
} else {
  console.log(`(a run of some groups prints only; \`npm run bench\` with no names writes the report into ${REPORT_DIR})`);
}
