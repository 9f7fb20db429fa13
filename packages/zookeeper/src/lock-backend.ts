import type { BackendModule } from "@distlock/core/driver";

/**
 * The name and URL schemes the ZooKeeper backend registers under when a process loads this package by name
 * (`DISTLOCK_BACKENDS`, the CLI's `--backend-module`, the conformance suite's `backendModule`): afterwards
 * `createLockProvider("zookeeper://…")` and `createLockProvider("zk://…")` reach it.
 */
export const lockBackend = {
  name: "zookeeper",
  schemes: [
    { scheme: "zookeeper", hosts: "many" },
    { scheme: "zk", hosts: "many" },
  ],
} as const satisfies NonNullable<BackendModule["lockBackend"]>;
