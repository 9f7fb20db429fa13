import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type {
  AcquireAbortedEvent,
  AcquireErrorEvent,
  AcquireEventBase,
  AcquireGrantedEvent,
  AcquireStartEvent,
  AcquireTimeoutEvent,
  LostEvent,
  ReleaseEvent,
  RenewEvent,
  RenewFailureEvent,
} from "@distlock/core";
import { LOCK_CHANNELS } from "@distlock/core";
import { type Attributes, context, diag, type MeterProvider, metrics, type Span, SpanStatusCode, type TracerProvider, trace } from "@opentelemetry/api";
import { errorType, type KeyAttributeOptions, withKeyAttribute } from "./key-attribute.js";
import { type AcquireOutcome, type HoldOutcome, INSTRUMENTATION_SCOPE, LOCK_ATTRIBUTES, LOCK_METRICS, LOCK_SPANS } from "./names.js";
import { packageVersion } from "./package-version.js";

/** Options of `instrumentLocks`. */
export interface InstrumentLocksOptions extends KeyAttributeOptions {
  /** Where the instruments come from. @default the global `metrics.getMeterProvider()` */
  meterProvider?: MeterProvider;
  /** Where the `distlock.acquire` spans come from. @default the global `trace.getTracerProvider()` */
  tracerProvider?: TracerProvider;
  /** Record metrics. @default true */
  metrics?: boolean;
  /** Record one `distlock.acquire` span per acquire/tryAcquire call. @default true */
  spans?: boolean;
}

/** A running instrumentation; `close()` (or `using`) unsubscribes from core's channels. */
export interface LockInstrumentation extends Disposable {
  /** Unsubscribes, ends the spans of calls still in flight and takes them off the waiter gauge; idempotent. */
  close(): void;
}

/** Wait and hold time buckets in seconds: a millisecond up to five minutes. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** One acquire call between its start and its outcome. */
interface PendingCall {
  readonly span: Span | undefined;
  /** The attributes the waiter gauge went up with (undefined: not counted, e.g. tryAcquire). */
  readonly waiting: Attributes | undefined;
}

/**
 * Records OpenTelemetry metrics, and a span per acquire call, for every lock of every backend in this process, from
 * core's `diagnostics_channel` events (`LOCK_CHANNELS`). Attributes name the backend and operation, the key only when
 * `keyAttribute`/`keyLabel` ask for it, never the owner.
 */
export function instrumentLocks(options: InstrumentLocksOptions = {}): LockInstrumentation {
  const version = packageVersion();
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE, version);
  const tracer = options.spans === false ? undefined : (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, version);
  const recordMetrics = options.metrics !== false;
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  const waitDuration = meter.createHistogram(LOCK_METRICS.waitDuration, {
    unit: "s",
    description: "Time an acquire call waited until it was granted, timed out or was aborted.",
    advice,
  });
  const holdDuration = meter.createHistogram(LOCK_METRICS.holdDuration, {
    unit: "s",
    description: "Time a lock was held, from its grant to its last release or its loss.",
    advice,
  });
  const acquisitions = meter.createCounter(LOCK_METRICS.acquisitions, { unit: "{call}", description: "Acquire calls that ended, by outcome." });
  const timeouts = meter.createCounter(LOCK_METRICS.timeouts, {
    unit: "{call}",
    description: "Acquire calls that ran out of their wait budget (tryAcquire: found the key held).",
  });
  const lost = meter.createCounter(LOCK_METRICS.lost, { unit: "{hold}", description: "Holds that could no longer be proven." });
  const renewals = meter.createCounter(LOCK_METRICS.renewals, { unit: "{renewal}", description: "Successful lease renewals." });
  const renewalFailures = meter.createCounter(LOCK_METRICS.renewalFailures, { unit: "{renewal}", description: "Failed lease renewals." });
  const held = meter.createUpDownCounter(LOCK_METRICS.held, { unit: "{lock}", description: "Locks held in this process (a re-entered lock counts once)." });
  const waiters = meter.createUpDownCounter(LOCK_METRICS.waiters, { unit: "{call}", description: "acquire calls waiting for a lock." });

  const pending = new Map<string, PendingCall>();
  /** Holds per backend and key whose grant was seen, so a hold granted before instrumenting never takes the gauge below 0. */
  const holds = new Map<string, number>();
  const callKey = (event: AcquireEventBase) => `${event.backend}\0${event.key}\0${event.callId}`;
  const holdKey = (event: { backend: string; key: string }) => `${event.backend}\0${event.key}`;
  const attributes = (event: { backend: string; key: string }, extra: Attributes = {}) =>
    withKeyAttribute({ [LOCK_ATTRIBUTES.backend]: event.backend, ...extra }, event.key, options);

  function onStart(event: AcquireStartEvent): void {
    const callAttributes = attributes(event, { [LOCK_ATTRIBUTES.operation]: event.operation });
    const waiting = recordMetrics && event.operation === "acquire" ? callAttributes : undefined;
    if (waiting !== undefined) waiters.add(1, waiting);
    const spanAttributes = event.waitMs === undefined ? callAttributes : { ...callAttributes, [LOCK_ATTRIBUTES.waitBudgetMs]: event.waitMs };
    const span = tracer?.startSpan(LOCK_SPANS.acquire, { attributes: spanAttributes }, context.active());
    pending.set(callKey(event), { span, waiting });
  }

  /** Ends the call's span and waiter count, and counts the outcome; the extra attributes go on the span only. */
  function onOutcome(event: AcquireEventBase & { waitMs: number }, outcome: AcquireOutcome, error?: unknown): void {
    const call = pending.get(callKey(event));
    pending.delete(callKey(event));
    if (call?.waiting !== undefined) waiters.add(-1, call.waiting);
    const outcomeAttributes = attributes(event, { [LOCK_ATTRIBUTES.operation]: event.operation, [LOCK_ATTRIBUTES.outcome]: outcome });
    if (recordMetrics) {
      acquisitions.add(1, outcome === "error" ? { ...outcomeAttributes, [LOCK_ATTRIBUTES.errorType]: errorType(error) } : outcomeAttributes);
      if (outcome !== "error") waitDuration.record(event.waitMs / 1000, outcomeAttributes);
      if (outcome === "timeout") timeouts.add(1, attributes(event, { [LOCK_ATTRIBUTES.operation]: event.operation }));
    }
    const span = call?.span;
    if (span === undefined) return;
    span.setAttribute(LOCK_ATTRIBUTES.outcome, outcome);
    if (outcome === "timeout" && event.operation === "acquire") span.setStatus({ code: SpanStatusCode.ERROR, message: "lock wait timed out" });
    if (outcome === "error") {
      span.setAttribute(LOCK_ATTRIBUTES.errorType, errorType(error));
      if (error instanceof Error) span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
  }

  function onGranted(event: AcquireGrantedEvent): void {
    const span = pending.get(callKey(event))?.span;
    if (event.fencingToken !== null) span?.setAttribute(LOCK_ATTRIBUTES.fencingToken, event.fencingToken.toString());
    span?.setAttribute(LOCK_ATTRIBUTES.holdCount, event.holdCount);
    if (recordMetrics && event.holdCount === 1) {
      holds.set(holdKey(event), (holds.get(holdKey(event)) ?? 0) + 1);
      held.add(1, attributes(event));
    }
    onOutcome(event, "granted");
  }

  function onHoldEnd(event: ReleaseEvent | LostEvent, outcome: HoldOutcome): void {
    if (!recordMetrics) return;
    const count = holds.get(holdKey(event)) ?? 0;
    if (count > 0) {
      if (count === 1) holds.delete(holdKey(event));
      else holds.set(holdKey(event), count - 1);
      held.add(-1, attributes(event));
    }
    holdDuration.record(event.holdMs / 1000, attributes(event, { [LOCK_ATTRIBUTES.outcome]: outcome }));
    if (outcome === "lost") lost.add(1, attributes(event));
  }

  const listeners: Record<string, (event: never) => void> = {
    [LOCK_CHANNELS.acquireStart]: onStart,
    [LOCK_CHANNELS.acquireGranted]: onGranted,
    [LOCK_CHANNELS.acquireTimeout]: (event: AcquireTimeoutEvent) => onOutcome(event, "timeout"),
    [LOCK_CHANNELS.acquireAborted]: (event: AcquireAbortedEvent) => onOutcome(event, "aborted"),
    [LOCK_CHANNELS.acquireError]: (event: AcquireErrorEvent) => onOutcome(event, "error", event.error),
    [LOCK_CHANNELS.release]: (event: ReleaseEvent) => onHoldEnd(event, "released"),
    [LOCK_CHANNELS.lost]: (event: LostEvent) => onHoldEnd(event, "lost"),
    [LOCK_CHANNELS.renew]: (event: RenewEvent) => {
      if (recordMetrics) renewals.add(1, attributes(event));
    },
    [LOCK_CHANNELS.renewFailure]: (event: RenewFailureEvent) => {
      if (recordMetrics) renewalFailures.add(1, attributes(event, { [LOCK_ATTRIBUTES.errorType]: errorType(event.error) }));
    },
  };
  // A throwing subscriber would surface as an uncaught exception in the locking process: log instead.
  const subscribed = Object.entries(listeners).map(([name, listener]) => {
    const guarded = (event: unknown) => {
      try {
        listener(event as never);
      } catch (error) {
        diag.error(`${INSTRUMENTATION_SCOPE}: the ${name} listener failed`, error);
      }
    };
    subscribe(name, guarded);
    return () => unsubscribe(name, guarded);
  });

  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const unsubscribeOne of subscribed) unsubscribeOne();
    // Calls still in flight will publish no outcome we hear: end their spans and take them off the waiter gauge.
    for (const call of pending.values()) {
      if (call.waiting !== undefined) waiters.add(-1, call.waiting);
      call.span?.end();
    }
    pending.clear();
  };
  return { close, [Symbol.dispose]: close };
}
