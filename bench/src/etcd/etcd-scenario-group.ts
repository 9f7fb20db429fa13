import { startEtcd } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { EtcdCostCounter } from "./etcd-cost-counter.js";
import { DISTLOCK, DISTLOCK_DEDICATED, ETCD3_LOCK, RAW_FLOOR } from "./etcd-lock-subjects.js";
import { ETCD_TARGETS } from "./etcd-targets.js";

const SUBJECTS_MODULE = new URL("./etcd-lock-subjects.js", import.meta.url).href;
const COSTS_NOTE =
  "- from etcd's /metrics: requests = gRPC messages etcd received (unary calls and stream messages), raft writes = committed proposals, WAL fsyncs and the µs they took, etcd CPU µs = the member's process CPU (10 ms ticks)";

/** Every etcd scenario against one etcd member started for the run. */
export const ETCD_SCENARIOS: ScenarioGroup = {
  name: "etcd (one etcd member on 127.0.0.1)",
  targets: ETCD_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startEtcd();
    const target = server.endpoint;
    try {
      return [
        ...(await uncontendedTables({
          scale,
          system: "etcd",
          id: "etcd",
          target,
          subjects: [RAW_FLOOR, DISTLOCK, DISTLOCK_DEDICATED, ETCD3_LOCK],
          baseline: RAW_FLOOR.name,
          keyPrefix: "bench/uncontended/",
          iterations: 3_000,
          rounds: 10,
          warmUp: 200,
          counter: new EtcdCostCounter(target),
          notes: [COSTS_NOTE],
          pairedFor: DISTLOCK.name,
        })),
        ...(await contendedSweep({
          scale,
          system: "etcd",
          id: "etcd",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench/contended/",
          subjects: [DISTLOCK, ETCD3_LOCK],
          workerCounts: [4, 16, 64],
          counter: new EtcdCostCounter(target),
          ratioOf: "acq/s",
          baseline: ETCD3_LOCK.name,
          notes: [COSTS_NOTE],
        })),
      ];
    } finally {
      await server.close();
    }
  },
};
