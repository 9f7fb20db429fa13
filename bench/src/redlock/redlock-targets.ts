import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK_REDLOCK, SEMAPHORE_REDLOCK_MUTEX, SESAMECARE_REDLOCK } from "./redlock-subjects.js";

const PEERS = [SESAMECARE_REDLOCK.name, SEMAPHORE_REDLOCK_MUTEX.name];
const ours = (table: string, metric: string) => ({ table, subject: DISTLOCK_REDLOCK.name, metric });

/** Issue 4's targets for the Redlock backend (fenced, its default). */
export const REDLOCK_TARGETS: readonly BenchTarget[] = [
  { claim: "uncontended throughput ≥ 1× both peers", value: ours("redlock-uncontended", "ops/s"), versus: { subjects: PEERS }, min: 1 },
  { claim: "W=16: hand-off p50 ≤ ½ of the better peer", value: ours("redlock-contended-w16", "hand-off p50 ms"), versus: { subjects: PEERS }, max: 0.5 },
  {
    claim: "requests per acquisition flat (±25%) as W grows from 4 to 64",
    value: ours("redlock-contended-w64", "requests/acq"),
    versus: { table: "redlock-contended-w4" },
    min: 0.75,
    max: 1.25,
  },
];
