import { DEFAULT_LOCK_URL, InvalidConfigError, type LockProvider } from "@distlock/core";
import { parseLockUrl, type ResolvedLockConfig } from "@distlock/core/driver";
import { SqlLockProvider } from "./sql-lock-provider.js";

/** What `createLockProvider()` in core calls for the postgres, mysql and sqlite backends; rejects at once if the URL's client library is missing. */
export async function createLockProviderFromConfig(config: ResolvedLockConfig): Promise<LockProvider> {
  const url = config.url ?? (config.backend === "sqlite" ? parseLockUrl(DEFAULT_LOCK_URL) : undefined);
  if (url === undefined) throw new InvalidConfigError("config.url", `the ${config.backend} backend needs a url, e.g. ${config.backend}://user@127.0.0.1/db`);
  return SqlLockProvider.open({ ...config.options, url, holderLabel: config.holderLabel }, "config");
}
