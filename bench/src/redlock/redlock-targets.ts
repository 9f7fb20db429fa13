import { type BenchTarget, sweepTargets } from "../harness/index.js";
import { DISTLOCK_REDLOCK, SEMAPHORE_REDLOCK_MUTEX, SESAMECARE_REDLOCK } from "./redlock-subjects.js";

/** The contended sweep's worker counts, which the targets check one by one. */
export const REDLOCK_WORKER_COUNTS = [4, 16, 64] as const;

const PEERS = [SESAMECARE_REDLOCK.name, SEMAPHORE_REDLOCK_MUTEX.name];

/**
 * Issue #18's targets for the Redlock backend (fenced, its default). Hand-off latency and requests per acquisition
 * stay in the tables as columns; they are no longer targets.
 */
export const REDLOCK_TARGETS: readonly BenchTarget[] = [
  {
    claim: "uncontended ops/s ≥ 0.9× the better peer",
    value: { table: "redlock-uncontended", subject: DISTLOCK_REDLOCK.name, metric: "ops/s" },
    versus: { subjects: PEERS, paired: true },
    min: 0.9,
  },
  ...sweepTargets({ id: "redlock", subject: DISTLOCK_REDLOCK.name, peers: PEERS, workerCounts: REDLOCK_WORKER_COUNTS }),
];
