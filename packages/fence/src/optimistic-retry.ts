import { InvalidArgumentError, VersionConflictError } from "@distlock/core";
import { abortableSleep } from "@distlock/core/internal";

/** How an optimistic write retries when the version it read has changed. */
export interface OptimisticRetryOptions {
  /** Attempts before `VersionConflictError`. @default 10 */
  maxAttempts?: number;
  /** First backoff; each retry waits a random time up to twice the previous bound. @default 5 */
  baseDelayMs?: number;
  /** Upper bound of one backoff. @default 200 */
  maxDelayMs?: number;
  /** Stops retrying; the wait in progress rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The written result and how hard it was to get. */
export interface OptimisticResult<T> {
  readonly value: T;
  /** Attempts made, the successful one included. */
  readonly attempts: number;
  /** Attempts that found another version than they read (attempts − 1). */
  readonly conflicts: number;
}

/** What one attempt returns when the version it read had changed. */
export const CONFLICT: unique symbol = Symbol("distlock.optimisticConflict");

/** Checks the retry options, naming the field, before any read or write. */
export function resolveRetryOptions(options: OptimisticRetryOptions = {}): Required<Omit<OptimisticRetryOptions, "signal">> {
  const { maxAttempts = 10, baseDelayMs = 5, maxDelayMs = 200 } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new InvalidArgumentError("options.maxAttempts", "must be an integer ≥ 1");
  if (!Number.isFinite(baseDelayMs) || baseDelayMs < 0) throw new InvalidArgumentError("options.baseDelayMs", "must be a number ≥ 0");
  if (!Number.isFinite(maxDelayMs) || maxDelayMs < baseDelayMs) throw new InvalidArgumentError("options.maxDelayMs", "must be a number ≥ options.baseDelayMs");
  return { maxAttempts, baseDelayMs, maxDelayMs };
}

/** Runs `attempt` until it returns something other than `CONFLICT`, with jittered exponential backoff between tries. */
export async function retryOptimistically<T>(
  resource: string,
  options: OptimisticRetryOptions | undefined,
  attempt: () => Promise<T | typeof CONFLICT>,
): Promise<OptimisticResult<T>> {
  const { maxAttempts, baseDelayMs, maxDelayMs } = resolveRetryOptions(options);
  const signal = options?.signal;
  for (let attempts = 1; ; attempts++) {
    signal?.throwIfAborted();
    const value = await attempt();
    if (value !== CONFLICT) return { value, attempts, conflicts: attempts - 1 };
    if (attempts >= maxAttempts) throw new VersionConflictError(resource, attempts);
    const bound = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempts - 1));
    await abortableSleep(Math.random() * bound, signal);
  }
}
