import { DEFAULT_TTL_MS, InvalidArgumentError, MAX_DURATION_MS } from "@distlock/core";

/** Options of `checkLockBackend`. */
export interface CheckLockBackendOptions {
  /** The lease length your application uses: round trips, etcd's minimum lease and Redlock's drift are judged against it. @default 30000 */
  ttlMs?: number;
  /** Run the live self-test (acquire/release on a key of its own, a second provider excluded, tokens, round trip). @default true */
  selfTest?: boolean;
  /** The key the self-test takes; it is free again when the check ends. @default "distlock-doctor:self-test" */
  selfTestKey?: string;
  /** Acquire+release rounds the round trip is measured over. @default 20 */
  roundTrips?: number;
}

/** The default of every option of `CheckLockBackendOptions`. */
export const DEFAULT_CHECK_OPTIONS: Readonly<Required<CheckLockBackendOptions>> = Object.freeze({
  ttlMs: DEFAULT_TTL_MS,
  selfTest: true,
  selfTestKey: "distlock-doctor:self-test",
  roundTrips: 20,
});

export type ResolvedCheckOptions = Readonly<Required<CheckLockBackendOptions>>;

const KNOWN = new Set(Object.keys(DEFAULT_CHECK_OPTIONS));

/** Validates the options, naming the bad field, before anything connects. */
export function resolveCheckOptions(options: CheckLockBackendOptions | undefined): ResolvedCheckOptions {
  if (options === undefined) return DEFAULT_CHECK_OPTIONS;
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidArgumentError("options", "must be an object");
  for (const name of Object.keys(options)) if (!KNOWN.has(name)) throw new InvalidArgumentError(`options.${name}`, "is not an option of checkLockBackend");
  const settings = { ...DEFAULT_CHECK_OPTIONS, ...options };
  if (!Number.isFinite(settings.ttlMs) || settings.ttlMs <= 0 || settings.ttlMs > MAX_DURATION_MS)
    throw new InvalidArgumentError("options.ttlMs", `must be a number of milliseconds from 1 to ${MAX_DURATION_MS}`);
  if (typeof settings.selfTest !== "boolean") throw new InvalidArgumentError("options.selfTest", "must be true or false");
  if (typeof settings.selfTestKey !== "string" || settings.selfTestKey === "")
    throw new InvalidArgumentError("options.selfTestKey", "must be a non-empty string");
  if (!Number.isInteger(settings.roundTrips) || settings.roundTrips < 1 || settings.roundTrips > 1_000)
    throw new InvalidArgumentError("options.roundTrips", "must be a whole number from 1 to 1000");
  return Object.freeze(settings);
}
