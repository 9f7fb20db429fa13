import { countingWaits } from "@distlock/conformance";
import { DriverLockProvider } from "@distlock/core/driver";
import { afterEach } from "vitest";
import { createRedisLockDriver } from "../src/create-redis-lock-driver.js";
import type { RedisLockProviderOptions } from "../src/options/redis-lock-provider-options.js";
import { resolveRedisLockOptions } from "../src/options/resolve-redis-lock-options.js";

/** A provider whose driver counts the waits core starts on it (`countingWaits`): each counted one is in a line. */
export interface WatchedProvider {
  readonly provider: DriverLockProvider;
  /** How many waits (`acquire` of the driver or of its semaphores) core has started so far. */
  waits(): number;
}

/** Makes watched providers on `url`; each is closed after the test that made it. */
export function watchedProviderPerTest(url: string) {
  const providers: DriverLockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });
  return (options: Partial<RedisLockProviderOptions> = {}): WatchedProvider => {
    const { driver, waits } = countingWaits(createRedisLockDriver(resolveRedisLockOptions({ url, ...options })));
    const provider = new DriverLockProvider(driver);
    providers.push(provider);
    return { provider, waits };
  };
}
