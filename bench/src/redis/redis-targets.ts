import { type BenchTarget, sweepTargets } from "../harness/index.js";
import { DISTLOCK, NODE_REDLOCK, RAW_FLOOR, REDIS_SEMAPHORE } from "./lock-subjects.js";
import { DISTLOCK_LEAN_REPLAY, DISTLOCK_REPLAY } from "./replay-subject.js";

/** The contended sweep's worker counts, which the targets check one by one. */
export const REDIS_WORKER_COUNTS = [4, 16, 64] as const;

const PEERS = [NODE_REDLOCK.name, REDIS_SEMAPHORE.name];
const uncontended = (metric: string) => ({ table: "redis-uncontended", subject: DISTLOCK.name, metric });

/**
 * Issue #17's targets for the Redis backend, with issue #39's hot key: ≥ 2× the better peer at every W and, at W = 64, no
 * more client CPU per acquisition. Commands per acquisition, hand-off latency and server time stay in the
 * tables as columns; they are no longer targets. The uncontended ones compare distlock with each subject round by round
 * (`redis-uncontended-paired`): the ratio of two rows' medians moved by ±10 % from run to run of the same code.
 */
export const REDIS_TARGETS: readonly BenchTarget[] = [
  { claim: "uncontended ops/s ≥ 1.0× the better peer", value: uncontended("ops/s"), versus: { subjects: PEERS, paired: true }, min: 1 },
  { claim: "uncontended ops/s ≥ 0.9× the raw ioredis floor", value: uncontended("ops/s"), versus: { subjects: [RAW_FLOOR.name], paired: true }, min: 0.9 },
  {
    claim: "uncontended client CPU: distlock − replay of its commands ≤ 10 µs/op",
    value: uncontended("client CPU µs/op"),
    versus: { subjects: [DISTLOCK_REPLAY.name], by: "difference", paired: true },
    max: 10,
  },
  {
    claim: "uncontended client CPU: distlock − the same commands on its own RESP connection (core and driver) ≤ 10 µs/op",
    value: uncontended("client CPU µs/op"),
    versus: { subjects: [DISTLOCK_LEAN_REPLAY.name], by: "difference", paired: true },
    max: 10,
  },
  ...sweepTargets({ id: "redis", subject: DISTLOCK.name, peers: PEERS, workerCounts: REDIS_WORKER_COUNTS, waitP99: true, minRatio: 2, clientCpuAt: [64] }),
  {
    claim: "10,000 held locks: ≤ 1 KB of heap per held lock (after GC)",
    value: { table: "redis-held-locks", subject: DISTLOCK.name, metric: "heap KB per held lock (after GC)" },
    max: 1,
  },
  {
    claim: "10,000 held locks: server commands/s to keep them ≤ redis-semaphore's",
    value: { table: "redis-held-locks", subject: DISTLOCK.name, metric: "server cmds/s renewing" },
    versus: { subjects: [REDIS_SEMAPHORE.name] },
    max: 1,
  },
];
