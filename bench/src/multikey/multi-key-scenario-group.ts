import { startRedis } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { SERVER_COUNTERS_NOTE, ServerCounters } from "../redis/server-counters.js";
import { CONTENDED_KEY_COUNT_SUBJECTS } from "./contended-key-subjects.js";
import { distlockKeys, KEY_COUNTS, redlockUniversalKeys, sesamecareKeys } from "./multi-key-subjects.js";
import { MULTI_KEY_TARGETS, MULTI_KEY_WORKERS } from "./multi-key-targets.js";

const SUBJECTS_MODULE = new URL("./contended-key-subjects.js", import.meta.url).href;

/** Multi-key locks on one redis-server: N keys taken and released together, alone and by two workers over one set. */
export const MULTI_KEY_SCENARIOS: ScenarioGroup = {
  name: "Multi-key locks (one redis-server on 127.0.0.1)",
  targets: MULTI_KEY_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startRedis();
    const target = server.url;
    try {
      const tables: BenchTable[] = [];
      for (const count of KEY_COUNTS) {
        const distlock = distlockKeys(count);
        tables.push(
          ...(await uncontendedTables({
            scale,
            system: `Redis, N = ${count} keys together,`,
            id: `multikey-n${count}`,
            target,
            subjects: [distlock, sesamecareKeys(count), redlockUniversalKeys(count)],
            baseline: distlock.name,
            keyPrefix: `bench:multikey:${count}:`,
            iterations: Math.round(9_600 / count) * 10,
            warmUp: 200,
            rounds: 8,
            counter: new ServerCounters(target),
            notes: [SERVER_COUNTERS_NOTE],
            pairedFor: distlock.name,
          })),
        );
      }
      tables.push(
        ...(await contendedSweep({
          scale,
          system: "Redis multi-key",
          id: "multikey",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench:multikey:contended:",
          subjects: CONTENDED_KEY_COUNT_SUBJECTS,
          workerCounts: MULTI_KEY_WORKERS,
          counter: new ServerCounters(target),
          ratioOf: "acq/s",
          better: "higher",
          notes: [SERVER_COUNTERS_NOTE],
        })),
      );
      return tables;
    } finally {
      await server.close();
    }
  },
};
