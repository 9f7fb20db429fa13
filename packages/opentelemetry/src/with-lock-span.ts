import { type AcquireOptions, type Lock, type LockProvider, withLock } from "@distlock/core";
import { type Attributes, SpanStatusCode, type TracerProvider, trace } from "@opentelemetry/api";
import { errorType, type KeyAttributeOptions, withKeyAttribute } from "./key-attribute.js";
import { INSTRUMENTATION_SCOPE, LOCK_ATTRIBUTES, LOCK_SPAN_EVENTS, LOCK_SPANS } from "./names.js";
import { packageVersion } from "./package-version.js";

/** `withLock`'s acquire options, plus where the span comes from and whether it names the key. */
export interface WithLockSpanOptions extends AcquireOptions, KeyAttributeOptions {
  /** Where the `distlock.hold` span comes from. @default the global `trace.getTracerProvider()` */
  tracerProvider?: TracerProvider;
}

/**
 * `withLock`, with the critical section in an active `distlock.hold` span: it starts once the lock is granted, carries
 * the backend, the fencing token and the hold count, gets a `distlock.lost` event if the hold is lost, and ends before
 * the release (status error and the exception when `fn` throws). Spans started inside `fn` are its children.
 */
export function withLockSpan<T>(
  provider: LockProvider,
  key: string,
  fn: (lock: Lock, signal: AbortSignal) => Promise<T> | T,
  options: WithLockSpanOptions = {},
): Promise<T> {
  const { tracerProvider, keyAttribute, keyLabel, ...acquireOptions } = options;
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, packageVersion());
  return withLock(
    provider,
    key,
    (lock, signal) => {
      const attributes: Attributes = { [LOCK_ATTRIBUTES.backend]: provider.backend, [LOCK_ATTRIBUTES.holdCount]: lock.holdCount };
      if (lock.fencingToken !== null) attributes[LOCK_ATTRIBUTES.fencingToken] = lock.fencingToken.toString();
      const spanAttributes = withKeyAttribute(attributes, key, { keyAttribute, keyLabel });
      return tracer.startActiveSpan(LOCK_SPANS.hold, { attributes: spanAttributes }, async (span) => {
        const onLost = () => span.addEvent(LOCK_SPAN_EVENTS.lost, { [LOCK_ATTRIBUTES.errorType]: errorType(signal.reason) });
        signal.addEventListener("abort", onLost, { once: true });
        try {
          return await fn(lock, signal);
        } catch (error) {
          if (error instanceof Error) span.recordException(error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          signal.removeEventListener("abort", onLost);
          span.end();
        }
      });
    },
    acquireOptions,
  );
}
