import type { Lock } from "@distlock/core";

/** The environment a command run under a lock sees: what it needs to fence its writes. */
export function lockEnvironment(lock: Pick<Lock, "key" | "holder" | "fencingToken">): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DISTLOCK_KEY: lock.key,
    DISTLOCK_HOLDER: lock.holder,
    DISTLOCK_FENCING_TOKEN: lock.fencingToken === null ? "" : lock.fencingToken.toString(),
  };
}
