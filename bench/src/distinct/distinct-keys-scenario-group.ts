import { startRedis } from "@distlock/test-servers";
import { type BenchTable, distinctKeysTables, type ScenarioGroup } from "../harness/index.js";
import { DISTLOCK, NODE_REDLOCK, PIPELINED_FLOOR, RAW_FLOOR, REDIS_SEMAPHORE } from "../redis/lock-subjects.js";
import { SERVER_COUNTERS_NOTE, ServerCounters } from "../redis/server-counters.js";
import { DISTINCT_CONCURRENCIES, DISTINCT_KEYS_TARGETS } from "./distinct-keys-targets.js";

/** Many distinct keys at once through one client per process, on one redis-server: the headline table for Redis. */
export const DISTINCT_KEYS_SCENARIOS: ScenarioGroup = {
  name: "Distinct keys (one redis-server on 127.0.0.1)",
  targets: DISTINCT_KEYS_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startRedis();
    try {
      return await distinctKeysTables({
        scale,
        system: "Redis",
        id: "redis",
        target: server.url,
        subjects: [DISTLOCK, REDIS_SEMAPHORE, NODE_REDLOCK, RAW_FLOOR, PIPELINED_FLOOR],
        concurrencies: DISTINCT_CONCURRENCIES,
        keys: 10_000,
        keyPrefix: "bench:distinct:",
        turnMs: 2_000,
        rounds: 3,
        baseline: DISTLOCK.name,
        pairedFor: DISTLOCK.name,
        counter: new ServerCounters(server.url),
        notes: [SERVER_COUNTERS_NOTE],
      });
    } finally {
      await server.close();
    }
  },
};
