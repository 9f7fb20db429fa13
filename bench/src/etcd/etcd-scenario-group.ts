import { startEtcd } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedScenario } from "../harness/index.js";
import { DISTLOCK, DISTLOCK_DEDICATED, ETCD3_LOCK, RAW_FLOOR } from "./etcd-lock-subjects.js";
import { EtcdRequestCounter } from "./etcd-request-counter.js";
import { ETCD_TARGETS } from "./etcd-targets.js";

const SUBJECTS_MODULE = new URL("./etcd-lock-subjects.js", import.meta.url).href;
const REQUESTS_NOTE = "- requests/op and requests/acq: gRPC messages etcd received (unary calls and stream messages), from its /metrics";

/** Every etcd scenario against one etcd member started for the run. */
export const ETCD_SCENARIOS: ScenarioGroup = {
  name: "etcd (one etcd member on 127.0.0.1)",
  targets: ETCD_TARGETS,
  async run(): Promise<BenchTable[]> {
    const server = await startEtcd();
    const target = server.endpoint;
    try {
      return [
        await uncontendedScenario({
          system: "etcd",
          id: "etcd",
          target,
          subjects: [RAW_FLOOR, DISTLOCK, DISTLOCK_DEDICATED, ETCD3_LOCK],
          baseline: RAW_FLOOR.name,
          keyPrefix: "bench/uncontended/",
          iterations: 2_000,
          warmUp: 200,
          counter: new EtcdRequestCounter(target),
          notes: [REQUESTS_NOTE],
        }),
        ...(await contendedSweep({
          system: "etcd",
          id: "etcd",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench/contended/",
          subjects: [DISTLOCK, ETCD3_LOCK],
          workerCounts: [4, 16, 64],
          counter: new EtcdRequestCounter(target),
          ratioOf: "acq/s",
          baseline: ETCD3_LOCK.name,
          notes: [REQUESTS_NOTE],
        })),
      ];
    } finally {
      await server.close();
    }
  },
};
