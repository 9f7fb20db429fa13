import { startEtcd } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { etcdContendedScenario } from "./etcd-contended-scenario.js";
import { DISTLOCK, DISTLOCK_DEDICATED, ETCD3_LOCK, RAW_FLOOR } from "./etcd-lock-subjects.js";
import { etcdUncontendedScenario } from "./etcd-uncontended-scenario.js";

/** Every etcd scenario against one etcd member started for the run. */
export const ETCD_SCENARIOS: ScenarioGroup = {
  name: "etcd (one etcd 3.4 member on 127.0.0.1)",
  async run(): Promise<BenchTable[]> {
    const server = await startEtcd();
    try {
      return [
        await etcdUncontendedScenario(server.endpoint, [RAW_FLOOR, DISTLOCK, DISTLOCK_DEDICATED, ETCD3_LOCK], RAW_FLOOR.name),
        ...(await etcdContendedScenario(server.endpoint, [DISTLOCK, ETCD3_LOCK], [4, 16], ETCD3_LOCK.name)),
      ];
    } finally {
      await server.close();
    }
  },
};
