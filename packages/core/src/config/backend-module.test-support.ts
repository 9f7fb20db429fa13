import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import type { ResolvedLockConfig } from "./config-types.js";

/** A backend module as a third party ships one: loaded by specifier from `DISTLOCK_BACKENDS` in the registry's tests. */
export const lockBackend = { name: "module-probe", schemes: [{ scheme: "module-probe", hosts: "many" as const }] };

export function createLockProviderFromConfig(config: ResolvedLockConfig): MemoryLockProvider {
  return new MemoryLockProvider({ store: `module-probe:${config.url?.hosts.map((h) => h.host).join(",")}`, holderLabel: config.holderLabel });
}
