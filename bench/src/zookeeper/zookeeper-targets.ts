import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR } from "./zookeeper-lock-subjects.js";

const ours = (table: string, metric: string) => ({ table, subject: DISTLOCK.name, metric });

/** Issue 40's targets for the ZooKeeper backend; uncontended compares round by round with the floor (`zookeeper-uncontended-paired`), as Redis's does. */
export const ZOOKEEPER_TARGETS: readonly BenchTarget[] = [
  {
    claim: "uncontended throughput ≥ 0.9× the raw create + delete floor",
    value: ours("zookeeper-uncontended", "ops/s"),
    versus: { subjects: [RAW_FLOOR.name], paired: true },
    min: 0.9,
  },
  { claim: "W=16: FIFO fairness min/max ≥ 0.8", value: ours("zookeeper-contended-w16", "fairness min/max"), min: 0.8 },
];
