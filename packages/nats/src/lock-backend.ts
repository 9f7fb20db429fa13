import type { BackendModule } from "@distlock/core/driver";

/**
 * The name and URL scheme `@distlock/nats` registers under when a process loads it by name (`DISTLOCK_BACKENDS`, the
 * CLI's `--backend-module`, the conformance suite's `backendModule`): then `createLockProvider("nats://…")` reaches it.
 */
export const lockBackend = {
  name: "nats",
  schemes: [{ scheme: "nats", hosts: "many" }],
} as const satisfies NonNullable<BackendModule["lockBackend"]>;
