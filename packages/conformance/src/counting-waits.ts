import type { LockDriver } from "@distlock/core/driver";

/** A driver that counts the waits core starts on it, and that count. */
export interface CountingWaits {
  readonly driver: LockDriver;
  /** How many waits (`acquire` of the driver or of its semaphores) core has started so far: each counted one is in a line. */
  waits(): number;
}

/**
 * `driver` with every wait core starts on it counted: `LockDriver.acquire` and its semaphores' `acquire`. A test waits
 * for the count to learn that an acquire is in a line (a cohort's, or the server's), not for time to pass.
 */
export function countingWaits(driver: LockDriver): CountingWaits {
  let waits = 0;
  const counting = <T extends object>(target: T, nested: Partial<Record<PropertyKey, unknown>> = {}): T =>
    new Proxy(target, {
      get(inner, name) {
        if (name in nested) return nested[name];
        const value: unknown = Reflect.get(inner, name, inner);
        if (typeof value !== "function") return value;
        if (name !== "acquire") return value.bind(inner);
        return (...args: unknown[]) => {
          waits += 1;
          return value.apply(inner, args);
        };
      },
    });
  const semaphores = driver.semaphores === undefined ? {} : { semaphores: counting(driver.semaphores) };
  return { driver: counting(driver, semaphores), waits: () => waits };
}
