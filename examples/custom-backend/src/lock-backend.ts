import type { BackendModule } from "@distlock/core/driver";

/**
 * The name and URL schemes lockd registers under when a process loads this package by name (`DISTLOCK_BACKENDS`, the
 * CLI's `--backend-module`, the conformance suite's `backendModule`): afterwards `createLockProvider("lockd://…")` reaches it.
 */
export const lockBackend = {
  name: "lockd",
  schemes: [{ scheme: "lockd", hosts: "one" }],
} as const satisfies NonNullable<BackendModule["lockBackend"]>;
