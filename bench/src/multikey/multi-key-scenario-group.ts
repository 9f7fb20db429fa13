import { startRedis } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { SERVER_COUNTERS_NOTE, ServerCounters } from "../redis/server-counters.js";
import { CONTENDED_KEY_COUNT_SUBJECTS } from "./contended-key-subjects.js";
import { distlockKeys, KEY_COUNTS, redlockUniversalKeys, sesamecareKeys } from "./multi-key-subjects.js";
import { CONTENDED_KEY_COUNT, MULTI_KEY_TARGETS, MULTI_KEY_WORKERS } from "./multi-key-targets.js";

const SUBJECTS_MODULE = new URL("./contended-key-subjects.js", import.meta.url).href;

/** Measured sets per subject and key count, over the rounds. */
const MEASURED_SETS: Record<(typeof KEY_COUNTS)[number], number> = { 2: 24_000, 8: 16_000, 32: 8_000 };

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
            // Turns of ~0.5 s or more, after 2,000 warm-up sets: with 375 sets a turn and 200 to warm up, distlock's
            // client CPU at N = 32 read 186 us/op in the bench and 107 us (user) in a steady loop of the same code.
            iterations: MEASURED_SETS[count],
            warmUp: 2_000,
            rounds: 8,
            counter: new ServerCounters(target),
            notes: [SERVER_COUNTERS_NOTE],
            pairedFor: distlock.name,
            takes: `the same ${count} keys together`,
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
          takes: `the same ${CONTENDED_KEY_COUNT} keys together`,
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
