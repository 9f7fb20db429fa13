/** The metric names `instrumentLocks` records; the README's table says what each one measures. */
export const LOCK_METRICS = Object.freeze({
  waitDuration: "distlock.lock.wait.duration",
  holdDuration: "distlock.lock.hold.duration",
  acquisitions: "distlock.lock.acquisitions",
  timeouts: "distlock.lock.timeouts",
  lost: "distlock.lock.lost",
  renewals: "distlock.lock.renewals",
  renewalFailures: "distlock.lock.renewal.failures",
  held: "distlock.lock.held",
  waiters: "distlock.lock.waiters",
} as const);

/** The span names: one `acquire` span per acquire/tryAcquire call, one `hold` span per `withLockSpan` critical section. */
export const LOCK_SPANS = Object.freeze({
  acquire: "distlock.acquire",
  hold: "distlock.hold",
} as const);

/** The span event names: `lost` on a `distlock.hold` span whose hold could no longer be proven. */
export const LOCK_SPAN_EVENTS = Object.freeze({
  lost: "distlock.lost",
} as const);

/** The attribute keys on metrics and spans. `key` is set only when the caller opts in. */
export const LOCK_ATTRIBUTES = Object.freeze({
  backend: "distlock.backend",
  operation: "distlock.operation",
  outcome: "distlock.outcome",
  key: "distlock.key",
  fencingToken: "distlock.fencing_token",
  holdCount: "distlock.hold_count",
  waitBudgetMs: "distlock.wait_budget_ms",
  errorType: "error.type",
} as const);

/** How an acquire call ended (`distlock.outcome` of acquire metrics and spans). */
export type AcquireOutcome = "granted" | "timeout" | "aborted" | "error";

/** How a hold ended (`distlock.outcome` of the hold duration). */
export type HoldOutcome = "released" | "lost";

/** The instrumentation scope name of the meter and tracer. */
export const INSTRUMENTATION_SCOPE = "@distlock/opentelemetry";
