import { DEFAULT_LOCK_URL, InvalidConfigError, type LockProvider, parseLockUrl, type ResolvedLockConfig } from "@distlock/core";
import { SqlLockProvider } from "./sql-lock-provider.js";

/** What `createLockProvider()` in core calls for the postgres, mysql and sqlite backends. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): LockProvider {
  const url = config.url ?? (config.backend === "sqlite" ? parseLockUrl(DEFAULT_LOCK_URL) : undefined);
  if (url === undefined) throw new InvalidConfigError("config.url", `the ${config.backend} backend needs a url, e.g. ${config.backend}://user@127.0.0.1/db`);
  return new SqlLockProvider({ ...config.options, url, holderLabel: config.holderLabel }, "config");
}
