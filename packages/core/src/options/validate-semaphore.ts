import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { AcquireOptions, PermitAcquireOptions } from "../types.js";
import { MAX_PERMITS } from "./defaults.js";
import { validateAcquireOptions } from "./validate-acquire.js";

/** Returns the permit count of `provider.semaphore`'s options; throws `InvalidArgumentError` naming the bad field. */
export function validateSemaphoreOptions(options: unknown): number {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidArgumentError("options", "must be an object with permits");
  for (const name of Object.keys(options)) {
    if (name !== "permits") throw new InvalidArgumentError(`options.${name}`, "is not a known option");
  }
  const { permits } = options as { permits?: unknown };
  checkCount("options.permits", permits, MAX_PERMITS);
  return permits as number;
}

/**
 * The permit count and lock options of one `Semaphore.acquire`; throws `InvalidArgumentError` naming the bad field,
 * including a `count` above `permits` and an `owner` (permits never re-enter, so there is no owner to name).
 */
export function validatePermitOptions(options: unknown, permits: number): { count: number; lockOptions: AcquireOptions } {
  if (options === undefined) return { count: 1, lockOptions: validateAcquireOptions(undefined) };
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidArgumentError("options", "must be an object");
  const { count = 1, ...rest } = options as PermitAcquireOptions & { owner?: unknown };
  if (Object.hasOwn(rest, "owner"))
    throw new InvalidArgumentError("options.owner", "is not a permit option: every acquire takes its own permits, none re-enters");
  checkCount("options.count", count, permits);
  return { count, lockOptions: validateAcquireOptions(rest) };
}

function checkCount(field: string, value: unknown, maximum: number): void {
  if (typeof value !== "number" || !Number.isInteger(value)) throw new InvalidArgumentError(field, "must be an integer");
  if (value <= 0) throw new InvalidArgumentError(field, "must be greater than 0");
  if (value > maximum) throw new InvalidArgumentError(field, `must be at most ${maximum}${field === "options.count" ? " (the semaphore's permits)" : ""}`);
}
