import { LockError, LockErrorCode, type LockProvider, type LockProviderConfig } from "@distlock/core";
import { resolveLockConfig } from "@distlock/core/internal";
import { afterEach, expect } from "vitest";
import { createLockProviderFromConfig } from "../src/create-lock-provider-from-config.js";

/** Providers built from URLs the way `createLockProvider` builds them; each is closed after the test that opened it. */
export function urlProviders() {
  const providers: LockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  function provider(config: string | LockProviderConfig): LockProvider {
    const locks = createLockProviderFromConfig(resolveLockConfig(config));
    providers.push(locks);
    return locks;
  }

  /** The `BACKEND_UNAVAILABLE` error a one-shot acquire of `key` through `url` fails with (the test fails if it does not). */
  async function unavailable(config: string | LockProviderConfig, key: string): Promise<LockError> {
    const error = await provider(config)
      .acquire(key, { waitMs: 0 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    return error as LockError;
  }

  return { provider, unavailable };
}
