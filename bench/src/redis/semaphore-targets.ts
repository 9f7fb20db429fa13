import { type BenchTarget, sweepTargets } from "../harness/index.js";
import { DISTLOCK_SEMAPHORE, REDIS_SEMAPHORE_SEMAPHORE } from "./semaphore-subjects.js";

/** The contended run's worker count (issue #21: W = 16 over 4 processes). */
export const SEMAPHORE_WORKER_COUNTS = [16] as const;

/** Issue #21's targets for the Redis semaphore against redis-semaphore's `Semaphore`. */
export const SEMAPHORE_TARGETS: readonly BenchTarget[] = [
  {
    claim: "uncontended ops/s ≥ 0.9× redis-semaphore Semaphore",
    value: { table: "redis-semaphore-uncontended", subject: DISTLOCK_SEMAPHORE.name, metric: "ops/s" },
    versus: { subjects: [REDIS_SEMAPHORE_SEMAPHORE.name], paired: true },
    min: 0.9,
  },
  ...sweepTargets({
    id: "redis-semaphore",
    subject: DISTLOCK_SEMAPHORE.name,
    peers: [REDIS_SEMAPHORE_SEMAPHORE.name],
    workerCounts: SEMAPHORE_WORKER_COUNTS,
  }),
];
