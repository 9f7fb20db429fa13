import { startZooKeeper } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR } from "./zookeeper-lock-subjects.js";
import { ZOOKEEPER_TARGETS } from "./zookeeper-targets.js";

const SUBJECTS_MODULE = new URL("./zookeeper-lock-subjects.js", import.meta.url).href;

/** Every ZooKeeper scenario against one standalone server started for the run. */
export const ZOOKEEPER_SCENARIOS: ScenarioGroup = {
  name: "zookeeper (one ZooKeeper 3.8 server on 127.0.0.1, forceSync=no)",
  targets: ZOOKEEPER_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startZooKeeper();
    const target = server.connectString;
    try {
      return [
        ...(await uncontendedTables({
          scale,
          system: "zookeeper",
          id: "zookeeper",
          target,
          subjects: [RAW_FLOOR, DISTLOCK],
          baseline: RAW_FLOOR.name,
          keyPrefix: "bench/uncontended/",
          // 500 ops (about 0.3 s) per turn: with 200, one pause of the server's JVM or of this process moved a round's
          // ratio by 0.1 and the paired median over 10 rounds by ±0.05 from run to run.
          iterations: 8_000,
          rounds: 16,
          // Both JITs must be done first: 200 ops measured V8 still compiling distlock's longer path, and the JVM the
          // server's getChildren path, which only the recipe's line read takes (in the last 3 of 10 rounds, too).
          warmUp: 2_000,
          pairedFor: DISTLOCK.name,
        })),
        ...(await contendedSweep({
          scale,
          system: "zookeeper",
          id: "zookeeper",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench/contended/",
          subjects: [DISTLOCK],
          workerCounts: [4, 16, 64],
          ratioOf: "acq/s",
        })),
      ];
    } finally {
      await server.close();
    }
  },
};
