import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR } from "./dynamodb-lock-subjects.js";

/** Issue 43's target for the DynamoDB backend. */
export const DYNAMODB_TARGETS: readonly BenchTarget[] = [
  {
    claim: "uncontended throughput ≥ 0.9× the raw conditional put/delete floor",
    value: { table: "dynamodb-uncontended", subject: DISTLOCK.name, metric: "ops/s" },
    versus: { subjects: [RAW_FLOOR.name] },
    min: 0.9,
  },
];
