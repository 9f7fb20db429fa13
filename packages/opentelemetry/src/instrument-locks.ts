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
import {
  type Attributes,
  context,
  diag,
  type MeterProvider,
  metrics,
  type ObservableCounter,
  type ObservableUpDownCounter,
  type Span,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { AttributeSets } from "./attribute-sets.js";
import { errorType, type KeyAttributeOptions } from "./key-attribute.js";
import { type AcquireOutcome, type HoldOutcome, INSTRUMENTATION_SCOPE, LOCK_ATTRIBUTES, LOCK_METRICS, LOCK_SPANS } from "./names.js";
import { packageVersion } from "./package-version.js";
import { Tally } from "./tally.js";

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
  const counters = {
    acquisitions: observable(
      meter.createObservableCounter(LOCK_METRICS.acquisitions, { unit: "{call}", description: "Acquire calls that ended, by outcome." }),
    ),
    timeouts: observable(
      meter.createObservableCounter(LOCK_METRICS.timeouts, {
        unit: "{call}",
        description: "Acquire calls that ran out of their wait budget (tryAcquire: found the key held).",
      }),
    ),
    lost: observable(meter.createObservableCounter(LOCK_METRICS.lost, { unit: "{hold}", description: "Holds that could no longer be proven." })),
    renewals: observable(meter.createObservableCounter(LOCK_METRICS.renewals, { unit: "{renewal}", description: "Successful lease renewals." })),
    renewalFailures: observable(meter.createObservableCounter(LOCK_METRICS.renewalFailures, { unit: "{renewal}", description: "Failed lease renewals." })),
    held: observable(
      meter.createObservableUpDownCounter(LOCK_METRICS.held, { unit: "{lock}", description: "Locks held in this process (a re-entered lock counts once)." }),
    ),
    waiters: observable(meter.createObservableUpDownCounter(LOCK_METRICS.waiters, { unit: "{call}", description: "acquire calls waiting for a lock." })),
  };

  const pending = new Map<number, PendingCall>();
  /** Holds per backend and key whose grant was seen, so a hold granted before instrumenting never takes the gauge below 0. */
  const holds = new Map<string, number>();
  const holdKey = (event: { backend: string; key: string }) => `${event.backend}\0${event.key}`;
  const sets = new AttributeSets(options);
  const operation = (event: AcquireEventBase) => [LOCK_ATTRIBUTES.operation, event.operation] as const;

  function onStart(event: AcquireStartEvent): void {
    const callAttributes = sets.of(event, operation(event));
    const waiting = recordMetrics && event.operation === "acquire" ? callAttributes : undefined;
    if (waiting !== undefined) counters.waiters.tally.add(waiting, 1);
    const span = tracer?.startSpan(LOCK_SPANS.acquire, { attributes: callAttributes }, context.active());
    if (event.waitMs !== undefined) span?.setAttribute(LOCK_ATTRIBUTES.waitBudgetMs, event.waitMs);
    pending.set(event.callId, { span, waiting });
  }

  /** Ends the call's span and waiter count, and counts the outcome; the extra attributes go on the span only. */
  function onOutcome(event: AcquireEventBase & { waitMs: number }, outcome: AcquireOutcome, error?: unknown): void {
    const call = pending.get(event.callId);
    pending.delete(event.callId);
    if (call?.waiting !== undefined) counters.waiters.tally.add(call.waiting, -1);
    if (recordMetrics) {
      const outcomeAttributes = sets.of(event, operation(event), [LOCK_ATTRIBUTES.outcome, outcome]);
      counters.acquisitions.tally.add(
        outcome === "error"
          ? sets.of(event, operation(event), [LOCK_ATTRIBUTES.outcome, outcome], [LOCK_ATTRIBUTES.errorType, errorType(error)])
          : outcomeAttributes,
        1,
      );
      if (outcome !== "error") waitDuration.record(event.waitMs / 1000, outcomeAttributes);
      if (outcome === "timeout") counters.timeouts.tally.add(sets.of(event, operation(event)), 1);
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
    const span = pending.get(event.callId)?.span;
    if (event.fencingToken !== null) span?.setAttribute(LOCK_ATTRIBUTES.fencingToken, event.fencingToken.toString());
    span?.setAttribute(LOCK_ATTRIBUTES.holdCount, event.holdCount);
    if (recordMetrics && event.holdCount === 1) {
      holds.set(holdKey(event), (holds.get(holdKey(event)) ?? 0) + 1);
      counters.held.tally.add(sets.of(event), 1);
    }
    onOutcome(event, "granted");
  }

  function onHoldEnd(event: ReleaseEvent | LostEvent, outcome: HoldOutcome): void {
    if (!recordMetrics) return;
    const key = holdKey(event);
    const count = holds.get(key) ?? 0;
    if (count > 0) {
      if (count === 1) holds.delete(key);
      else holds.set(key, count - 1);
      counters.held.tally.add(sets.of(event), -1);
    }
    holdDuration.record(event.holdMs / 1000, sets.of(event, [LOCK_ATTRIBUTES.outcome, outcome]));
    if (outcome === "lost") counters.lost.tally.add(sets.of(event), 1);
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
      if (recordMetrics) counters.renewals.tally.add(sets.of(event), 1);
    },
    [LOCK_CHANNELS.renewFailure]: (event: RenewFailureEvent) => {
      if (recordMetrics) counters.renewalFailures.tally.add(sets.of(event, [LOCK_ATTRIBUTES.errorType, errorType(event.error)]), 1);
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
      if (call.waiting !== undefined) counters.waiters.tally.add(call.waiting, -1);
      call.span?.end();
    }
    pending.clear();
  };
  return { close, [Symbol.dispose]: close };
}

/** An asynchronous instrument fed by a tally; after `close()` it keeps reporting the final counts, as a synchronous one would. */
function observable(instrument: ObservableCounter | ObservableUpDownCounter): { tally: Tally } {
  const tally = new Tally();
  instrument.addCallback(tally.observe);
  return { tally };
}
