import type { ResolvedLockConfig } from "../config/config-types.js";
import { InvalidConfigError } from "../errors/invalid-config-error.js";
import type { LockProvider } from "../types.js";
import { MemoryLockProvider } from "./memory-lock-provider.js";

/** The memory backend's factory: `memory:<store>` names the in-process store; it takes no other option. */
export function createMemoryProviderFromConfig(config: ResolvedLockConfig): LockProvider {
  const unknown = Object.keys(config.options)[0];
  if (unknown !== undefined) throw new InvalidConfigError(`config.${unknown}`, "is not an option of the memory backend");
  return new MemoryLockProvider({ store: config.url?.path || "default", holderLabel: config.holderLabel });
}
