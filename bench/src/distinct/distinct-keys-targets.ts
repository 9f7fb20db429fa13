import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, NODE_REDLOCK, PIPELINED_FLOOR, REDIS_SEMAPHORE } from "../redis/lock-subjects.js";

/** The concurrencies of the distinct-keys tables. */
export const DISTINCT_CONCURRENCIES = [1, 16, 64, 256] as const;

const PEERS = [REDIS_SEMAPHORE.name, NODE_REDLOCK.name];
const at = (concurrency: number, metric: string) => ({ table: `redis-distinct-c${concurrency}`, subject: DISTLOCK.name, metric });

/**
 * Issue #39's distinct-keys targets. Throughput compares round by round (`redis-distinct-c<C>-paired`), as the Redis
 * uncontended targets do: the ratio of two rows' medians moved by ±10 % from run to run of the same code (C = 1: 0.89×
 * and 1.04× the better peer in two runs of 2026-11-28). So does p99, turn against turn: a burst of load from elsewhere on
 * the shared cores lands in one subject's turn and moved the pooled p99 of a row by up to 2× (C = 64, redis-semaphore alone
 * in a process: 5.7–7.3 ms in three turns); the rows keep the pooled p99.
 */
export const DISTINCT_KEYS_TARGETS: readonly BenchTarget[] = [
  { claim: "C=1: ops/s ≥ 1.0× the better peer", value: at(1, "ops/s"), versus: { subjects: PEERS, paired: true }, min: 1 },
  ...[64, 256].flatMap((c): BenchTarget[] => [
    { claim: `C=${c}: ops/s ≥ 1.2× the better peer`, value: at(c, "ops/s"), versus: { subjects: PEERS, paired: true }, min: 1.2 },
    { claim: `C=${c}: p99 ≤ the better peer's`, value: at(c, "p99 µs"), versus: { subjects: PEERS, paired: true }, max: 1 },
    {
      claim: `C=${c}: ops/s ≥ 0.9× the auto-pipelined ioredis floor`,
      value: at(c, "ops/s"),
      versus: { subjects: [PIPELINED_FLOOR.name], paired: true },
      min: 0.9,
    },
  ]),
];
