import type { BackendModule } from "@distlock/core/driver";

/**
 * The name and URL scheme DynamoDB registers under when a process loads this package by name (`DISTLOCK_BACKENDS`, the
 * CLI's `--backend-module`, the conformance suite's `backendModule`): afterwards `createLockProvider("dynamodb://…")` reaches it.
 */
export const lockBackend = {
  name: "dynamodb",
  schemes: [{ scheme: "dynamodb", hosts: "one" }],
} as const satisfies NonNullable<BackendModule["lockBackend"]>;
