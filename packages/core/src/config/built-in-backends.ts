import { createMemoryProviderFromConfig } from "../memory/memory-backend.js";
import type { LockProviderFactory, LockUrlScheme } from "./config-types.js";

/**
 * The backends that ship with distlock, registered at start-up through `registerLockBackend` like any other. Core
 * depends on no driver: every package but memory is named by its specifier and imported on first use.
 */
export const BUILT_IN_BACKENDS: readonly { name: string; factory: LockProviderFactory | string; schemes: readonly LockUrlScheme[] }[] = [
  { name: "memory", factory: createMemoryProviderFromConfig, schemes: [{ scheme: "memory", hosts: "none" }] },
  { name: "sqlite", factory: "@distlock/sql", schemes: [{ scheme: "sqlite", hosts: "none" }] },
  {
    name: "postgres",
    factory: "@distlock/sql",
    schemes: [
      { scheme: "postgres", hosts: "one" },
      { scheme: "postgresql", hosts: "one" },
    ],
  },
  {
    name: "mysql",
    factory: "@distlock/sql",
    schemes: [
      { scheme: "mysql", hosts: "one" },
      { scheme: "mariadb", hosts: "one" },
    ],
  },
  {
    name: "redis",
    factory: "@distlock/redis",
    schemes: [
      { scheme: "redis", hosts: "one" },
      { scheme: "rediss", variant: "tls", hosts: "one" },
      { scheme: "redis+sentinel", variant: "sentinel", hosts: "many" },
      { scheme: "redis+cluster", variant: "cluster", hosts: "many" },
    ],
  },
  { name: "redlock", factory: "@distlock/redlock", schemes: [{ scheme: "redlock", hosts: "many" }] },
  {
    name: "etcd",
    factory: "@distlock/etcd",
    schemes: [
      { scheme: "etcd", hosts: "many" },
      { scheme: "etcds", variant: "tls", hosts: "many" },
    ],
  },
];
