import { RedisScript } from "@distlock/redis/internal";

/** distlock redlock's scripts for an uncontended acquire and release. */
export interface QuorumScripts {
  readonly acquire: RedisScript;
  readonly release: RedisScript;
}

/**
 * The quorum scripts that `RedlockLockDriver` sends every node. @distlock/redlock does not export them, so they are
 * imported from its scripts module next to the entry point the package resolves to (checked by name, so a rename or a
 * move fails here, not as a replay of something else). Drop this once the package exports them (an `/internal` subpath).
 */
export async function quorumScripts(): Promise<QuorumScripts> {
  const entry = import.meta.resolve("@distlock/redlock");
  const extension = entry.endsWith(".ts") ? ".ts" : ".js";
  const exports: Record<string, unknown> = await import(new URL(`./scripts/quorum-lock-scripts${extension}`, entry).href);
  return {
    acquire: script(exports, "QUORUM_ACQUIRE_SCRIPT", "distlock:quorum-acquire"),
    release: script(exports, "QUORUM_RELEASE_SCRIPT", "distlock:quorum-release"),
  };
}

function script(exports: Record<string, unknown>, name: string, scriptName: string): RedisScript {
  const found = exports[name];
  if (!(found instanceof RedisScript) || found.name !== scriptName) throw new Error(`@distlock/redlock's scripts module has no ${name} (${scriptName})`);
  return found;
}
