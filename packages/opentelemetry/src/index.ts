export { type InstrumentLocksOptions, instrumentLocks, type LockInstrumentation } from "./instrument-locks.js";
export type { KeyAttributeOptions } from "./key-attribute.js";
export { type AcquireOutcome, type HoldOutcome, INSTRUMENTATION_SCOPE, LOCK_ATTRIBUTES, LOCK_METRICS, LOCK_SPAN_EVENTS, LOCK_SPANS } from "./names.js";
export { type WithLockSpanOptions, withLockSpan } from "./with-lock-span.js";
