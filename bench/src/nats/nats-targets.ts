import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR } from "./nats-lock-subjects.js";

const ours = (table: string, metric: string) => ({ table, subject: DISTLOCK.name, metric });

/** Issue 41's targets for the NATS backend. */
export const NATS_TARGETS: readonly BenchTarget[] = [
  {
    claim: "uncontended throughput ≥ 0.9× the raw KV floor",
    value: ours("nats-uncontended", "ops/s"),
    versus: { subjects: [RAW_FLOOR.name], paired: true },
    min: 0.9,
  },
  { claim: "W=16: fairness min/max ≥ 0.8", value: ours("nats-contended-w16", "fairness min/max"), min: 0.8 },
];
