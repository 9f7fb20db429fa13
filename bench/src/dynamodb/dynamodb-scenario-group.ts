import { createDynamoDbLockTable } from "@distlock/dynamodb";
import { startDynalite } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, uncontendedTables } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR, tableUrl } from "./dynamodb-lock-subjects.js";
import { DYNAMODB_TARGETS } from "./dynamodb-targets.js";

const SUBJECTS_MODULE = new URL("./dynamodb-lock-subjects.js", import.meta.url).href;
const DYNALITE_NOTE = "- against dynalite (an in-memory DynamoDB look-alike on Node.js), not DynamoDB: round trips here are ~1 ms, DynamoDB's ~5–10 ms";

/** Every DynamoDB scenario against one dynalite server started for the run (dummy credentials: dynalite does not check them). */
export const DYNAMODB_SCENARIOS: ScenarioGroup = {
  name: "dynamodb (dynalite on 127.0.0.1)",
  targets: DYNAMODB_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    process.env.AWS_ACCESS_KEY_ID ??= "distlock-bench";
    process.env.AWS_SECRET_ACCESS_KEY ??= "distlock-bench";
    const server = await startDynalite();
    const target = server.endpoint;
    try {
      await createDynamoDbLockTable({ url: tableUrl(target) });
      return [
        ...(await uncontendedTables({
          scale,
          system: "DynamoDB",
          id: "dynamodb",
          target,
          subjects: [RAW_FLOOR, DISTLOCK],
          baseline: RAW_FLOOR.name,
          keyPrefix: "bench:uncontended:",
          iterations: 2_400,
          rounds: 12,
          warmUp: 100,
          notes: [DYNALITE_NOTE],
          pairedFor: DISTLOCK.name,
        })),
        ...(await contendedSweep({
          scale,
          system: "DynamoDB",
          id: "dynamodb",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: "bench:contended:",
          subjects: [DISTLOCK],
          workerCounts: [4, 16],
          ratioOf: "acq/s",
          better: "higher",
          baseline: DISTLOCK.name,
          notes: [
            DYNALITE_NOTE,
            "- FIFO: waiters stand in a line in the key's item and poll (5 ms after moving up, doubling to 500 ms, times the places ahead); only the head takes the key",
          ],
        })),
      ];
    } finally {
      await server.close();
    }
  },
};
