import { loadavg } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DISTINCT_KEYS_SCENARIOS } from "./distinct/distinct-keys-scenario-group.js";
import { DYNAMODB_SCENARIOS } from "./dynamodb/dynamodb-scenario-group.js";
import { ETCD_SCENARIOS } from "./etcd/etcd-scenario-group.js";
import { FENCE_SCENARIOS } from "./fence/fence-scenario-group.js";
import { benchScaleFrom, collectMachineInfo, runGroupsIsolated, runScenarioGroups, sweepPlots, writeBenchReport, writeGroupResults } from "./harness/index.js";
import { MULTI_KEY_SCENARIOS } from "./multikey/multi-key-scenario-group.js";
import { NATS_SCENARIOS } from "./nats/nats-scenario-group.js";
import { OBSERVABILITY_SCENARIOS } from "./observability/observability-scenario-group.js";
import { REDIS_SCENARIOS } from "./redis/redis-scenario-group.js";
import { REDIS_SEMAPHORE_SCENARIOS } from "./redis/semaphore-scenario-group.js";
import { REDLOCK_SCENARIOS } from "./redlock/redlock-scenario-group.js";
import { SQL_SCENARIOS } from "./sql/sql-scenario-group.js";
import { ZOOKEEPER_SCENARIOS } from "./zookeeper/zookeeper-scenario-group.js";

const GROUPS = {
  redis: REDIS_SCENARIOS,
  distinct: DISTINCT_KEYS_SCENARIOS,
  semaphore: REDIS_SEMAPHORE_SCENARIOS,
  redlock: REDLOCK_SCENARIOS,
  multikey: MULTI_KEY_SCENARIOS,
  etcd: ETCD_SCENARIOS,
  zookeeper: ZOOKEEPER_SCENARIOS,
  sql: SQL_SCENARIOS,
  nats: NATS_SCENARIOS,
  fence: FENCE_SCENARIOS,
  observability: OBSERVABILITY_SCENARIOS,
  dynamodb: DYNAMODB_SCENARIOS,
};
const REPORT_DIR = fileURLToPath(new URL("../../docs/benchmarks/", import.meta.url));

const args = process.argv.slice(2);
const { values, positionals: wanted } = parseArgs({
  args,
  options: { out: { type: "string" }, "result-file": { type: "string" } },
  allowPositionals: true,
});
const unknown = wanted.filter((name) => !(name in GROUPS));
if (unknown.length > 0) throw new Error(`unknown scenario group ${unknown.join(", ")}; choose from ${Object.keys(GROUPS).join(", ")}`);
const scale = benchScaleFrom(process.env);
const resultFile = values["result-file"];
if (resultFile !== undefined) {
  // A child of the run below: its groups' results go to the parent, which writes the report.
  writeGroupResults(
    resultFile,
    await runScenarioGroups(
      wanted.map((name) => GROUPS[name as keyof typeof GROUPS]),
      scale,
    ),
  );
  process.exit(0);
}
const names = wanted.length === 0 ? Object.keys(GROUPS) : wanted;
// The committed report is the full run of every group; a part of it, or a quick run, is written only where --out says.
const reportDir = values.out !== undefined ? resolve(values.out) : wanted.length === 0 && !scale.quick ? REPORT_DIR : undefined;
const machine = await collectMachineInfo();
const startedAt = new Date();
const started = performance.now();
const groups =
  names.length === 1
    ? await runScenarioGroups(
        names.map((name) => GROUPS[name as keyof typeof GROUPS]),
        scale,
      )
    : await runGroupsIsolated(fileURLToPath(import.meta.url), names);
if (reportDir !== undefined) {
  const report = {
    command: `${scale.quick ? "DISTLOCK_BENCH_QUICK=1 " : ""}npm run bench${args.length === 0 ? "" : ` -- ${args.join(" ")}`}`,
    startedAt,
    durationS: (performance.now() - started) / 1000,
    machine,
    loadAtEnd: loadavg(),
    scale,
    groups,
    plots: sweepPlots(groups.flatMap((group) => group.tables)),
  };
  for (const path of writeBenchReport(report, reportDir)) console.log(`wrote ${path}`);
} else {
  console.log(
    `(a run of some groups, or a quick one, prints only: \`npm run bench\` with no names writes the report into ${REPORT_DIR}, \`-- --out DIR\` into DIR)`,
  );
}
