import { startNats } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR } from "./nats-lock-subjects.js";
import { NATS_TARGETS } from "./nats-targets.js";

const SUBJECTS_MODULE = new URL("./nats-lock-subjects.js", import.meta.url).href;

/** distlock's NATS backend against the KV floor, on one nats-server with JetStream started for the run. */
export const NATS_SCENARIOS: ScenarioGroup = {
  name: "NATS (one nats-server 2.9 with JetStream on 127.0.0.1, R1 file bucket)",
  targets: NATS_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startNats();
    const target = server.url;
    try {
      return [
        ...(await uncontendedTables({
          scale,
          system: "NATS",
          id: "nats",
          target,
          subjects: [RAW_FLOOR, DISTLOCK],
          baseline: RAW_FLOOR.name,
          keyPrefix: "bench:uncontended:",
          iterations: 2_000,
          rounds: 8,
          warmUp: 200,
          // Round by round: the rows' medians read 0.82× (full run) and 1.05× (group alone) of the floor's the same morning.
          pairedFor: DISTLOCK.name,
        })),
        ...(await contendedSweep({
          scale,
          system: "NATS",
          id: "nats",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench:contended:",
          subjects: [DISTLOCK],
          workerCounts: [4, 16, 64],
          ratioOf: "acq/s",
          baseline: DISTLOCK.name,
        })),
      ];
    } finally {
      await server.close();
    }
  },
};
