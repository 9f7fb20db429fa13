import { DriverLockProvider, type LockDriver } from "@distlock/core/driver";
import { afterEach } from "vitest";
import { createRedisLockDriver } from "../src/create-redis-lock-driver.js";
import type { RedisLockProviderOptions } from "../src/options/redis-lock-provider-options.js";
import { resolveRedisLockOptions } from "../src/options/resolve-redis-lock-options.js";

/** A provider whose driver counts the waits core starts on it: each one that `acquire` starts is in a line once counted. */
export interface WatchedProvider {
  readonly provider: DriverLockProvider;
  /** How many waits (`LockDriver.acquire`) core has started on the driver so far. */
  waits(): number;
}

/** Makes watched providers on `url`; each is closed after the test that made it. */
export function watchedProviderPerTest(url: string) {
  const providers: DriverLockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });
  return (options: Partial<RedisLockProviderOptions> = {}): WatchedProvider => {
    const driver = createRedisLockDriver(resolveRedisLockOptions({ url, ...options }));
    let waits = 0;
    const counting: LockDriver = {
      backend: driver.backend,
      capabilities: driver.capabilities,
      tryAcquire: (request) => driver.tryAcquire(request),
      acquire: (request, wait) => {
        waits += 1;
        return driver.acquire(request, wait);
      },
      isWatching: (key) => driver.isWatching(key),
      renew: (renewals) => driver.renew(renewals),
      release: (key, ownerSecret) => driver.release(key, ownerSecret),
      inspect: (key) => driver.inspect(key),
      forceRelease: (key) => driver.forceRelease(key),
      close: () => driver.close(),
    };
    const provider = new DriverLockProvider(counting);
    providers.push(provider);
    return { provider, waits: () => waits };
  };
}
