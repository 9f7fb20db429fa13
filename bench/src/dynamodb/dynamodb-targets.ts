import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, RAW_FLOOR } from "./dynamodb-lock-subjects.js";

/**
 * Issue 43's target for the DynamoDB backend, compared round by round (`dynamodb-uncontended-paired`): the ratio of the
 * rows' medians ranged 0.71–0.92× over twelve runs of one day while the floor alone ranged 345–605 ops/s.
 */
export const DYNAMODB_TARGETS: readonly BenchTarget[] = [
  {
    claim: "uncontended throughput ≥ 0.9× the raw conditional put/delete floor",
    value: { table: "dynamodb-uncontended", subject: DISTLOCK.name, metric: "ops/s" },
    versus: { subjects: [RAW_FLOOR.name], paired: true },
    min: 0.9,
  },
];
