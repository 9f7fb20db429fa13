import type { MultiLock } from "@distlock/core";

/**
 * The environment a command run under locks sees: what it needs to fence its writes. Always `DISTLOCK_HOLDER`,
 * `DISTLOCK_KEYS` (a JSON array, in lock order) and `DISTLOCK_FENCING_TOKENS` (a JSON object of key to token, null
 * without fencing); with one key also `DISTLOCK_KEY` and `DISTLOCK_FENCING_TOKEN` ("" without fencing).
 */
export function lockEnvironment(held: Pick<MultiLock, "keys" | "holder" | "fencingTokens">): NodeJS.ProcessEnv {
  const tokens = Object.fromEntries(held.keys.map((key) => [key, held.fencingTokens.get(key)?.toString() ?? null]));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DISTLOCK_HOLDER: held.holder,
    DISTLOCK_KEYS: JSON.stringify(held.keys),
    DISTLOCK_FENCING_TOKENS: JSON.stringify(tokens),
  };
  const [only] = held.keys;
  if (held.keys.length === 1 && only !== undefined) {
    env.DISTLOCK_KEY = only;
    env.DISTLOCK_FENCING_TOKEN = tokens[only] ?? "";
  } else {
    delete env.DISTLOCK_KEY;
    delete env.DISTLOCK_FENCING_TOKEN;
  }
  return env;
}
