import { afterEach } from "vitest";
import type { RedisLockProviderOptions } from "../src/options/redis-lock-provider-options.js";
import { RedisLockProvider } from "../src/redis-lock-provider.js";

/** Makes providers on `url` with `defaults` under each call's options; each is closed after the test that made it. */
export function providerPerTest(url: string, defaults: Partial<RedisLockProviderOptions> = {}) {
  const providers: RedisLockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });
  return (options: Partial<RedisLockProviderOptions> = {}): RedisLockProvider => {
    const created = new RedisLockProvider({ url, ...defaults, ...options });
    providers.push(created);
    return created;
  };
}
