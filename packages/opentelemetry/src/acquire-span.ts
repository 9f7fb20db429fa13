import type { AcquireEventBase } from "@distlock/core";
import { type Attributes, type Context, type Span, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { errorType } from "./key-attribute.js";
import { type AcquireOutcome, LOCK_ATTRIBUTES, LOCK_SPANS } from "./names.js";

/** One acquire call between its start and its outcome. */
export interface PendingCall {
  /** `distlock.backend`, `distlock.operation` (and the key's label). */
  readonly attributes: Attributes;
  readonly waitBudgetMs: number | undefined;
  /** Counted in the waiter gauge (an `acquire` while metrics are on). */
  readonly waiting: boolean;
  /** When the call was made (`performance.now()`), and the context active there: its span's parent. */
  readonly startedAt: number;
  readonly parent: Context | undefined;
}

/** The call's `distlock.acquire` span, begun when the call was made (it is created afterwards, once its outcome is known). */
export function startAcquireSpan(tracer: Tracer, call: PendingCall, attributes: Attributes = call.attributes): Span {
  const span = tracer.startSpan(LOCK_SPANS.acquire, { attributes, startTime: call.startedAt }, call.parent);
  if (call.waitBudgetMs !== undefined) span.setAttribute(LOCK_ATTRIBUTES.waitBudgetMs, call.waitBudgetMs);
  return span;
}

/** Records the call's whole span, from the call to its outcome at `endedAt`, with the outcome's attributes and status. */
export function recordAcquireSpan(
  tracer: Tracer,
  call: PendingCall,
  event: AcquireEventBase & { fencingToken?: bigint | null; holdCount?: number },
  outcome: AcquireOutcome,
  endedAt: number,
  error: unknown,
): void {
  const attributes: Attributes = { [LOCK_ATTRIBUTES.backend]: event.backend, [LOCK_ATTRIBUTES.operation]: event.operation, [LOCK_ATTRIBUTES.outcome]: outcome };
  const keyLabel = call.attributes[LOCK_ATTRIBUTES.key];
  if (keyLabel !== undefined) attributes[LOCK_ATTRIBUTES.key] = keyLabel;
  if (event.fencingToken !== undefined && event.fencingToken !== null) attributes[LOCK_ATTRIBUTES.fencingToken] = event.fencingToken.toString();
  if (event.holdCount !== undefined) attributes[LOCK_ATTRIBUTES.holdCount] = event.holdCount;
  if (outcome === "error") attributes[LOCK_ATTRIBUTES.errorType] = errorType(error);
  const span = startAcquireSpan(tracer, call, attributes);
  if (outcome === "timeout" && event.operation === "acquire") span.setStatus({ code: SpanStatusCode.ERROR, message: "lock wait timed out" });
  if (outcome === "error") {
    if (error instanceof Error) span.recordException(error, endedAt);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end(endedAt);
}
