import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, ETCD3_LOCK, RAW_FLOOR } from "./etcd-lock-subjects.js";

const ours = (table: string, metric: string) => ({ table, subject: DISTLOCK.name, metric });

/** Issue 5's targets for the etcd backend. */
export const ETCD_TARGETS: readonly BenchTarget[] = [
  { claim: "uncontended throughput ≥ 2.5× etcd3's Lock", value: ours("etcd-uncontended", "ops/s"), versus: { subjects: [ETCD3_LOCK.name] }, min: 2.5 },
  { claim: "uncontended throughput ≥ 0.8× the raw txn floor", value: ours("etcd-uncontended", "ops/s"), versus: { subjects: [RAW_FLOOR.name] }, min: 0.8 },
  { claim: "W=16: FIFO fairness min/max ≥ 0.8", value: ours("etcd-contended-w16", "fairness min/max"), min: 0.8 },
];
