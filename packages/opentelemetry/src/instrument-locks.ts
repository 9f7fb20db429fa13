import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
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
  type Context,
  context,
  type MeterProvider,
  metrics,
  type ObservableCounter,
  type ObservableUpDownCounter,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { type PendingCall, recordAcquireSpan, startAcquireSpan } from "./acquire-span.js";
import { AttributeSets } from "./attribute-sets.js";
import { DeferredEvents, type EventRecorder } from "./deferred-events.js";
import { errorType, type KeyAttributeOptions } from "./key-attribute.js";
import { type AcquireOutcome, type HoldOutcome, INSTRUMENTATION_SCOPE, LOCK_METRICS } from "./names.js";
import { packageVersion } from "./package-version.js";
import { SeenHolds } from "./seen-holds.js";
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
  /**
   * Records the events still queued now (they are recorded anyway within 10 ms, and before every metric collection):
   * call it before reading spans right after a lock call, e.g. in a test.
   */
  flush(): void;
  /** Records what is queued, unsubscribes, ends the spans of calls still in flight and takes them off the waiter gauge; idempotent. */
  close(): void;
}

/** Wait and hold time buckets in seconds: a millisecond up to five minutes. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * Records OpenTelemetry metrics, and a span per acquire call, for every lock of every backend in this process, from
 * core's `diagnostics_channel` events (`LOCK_CHANNELS`). Attributes name the backend and operation, the key only when
 * `keyAttribute`/`keyLabel` ask for it, never the owner. A listener only queues its event: the queue is recorded in
 * batches (see `DeferredEvents`), and before every metric collection.
 */
export function instrumentLocks(options: InstrumentLocksOptions = {}): LockInstrumentation {
  const version = packageVersion();
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE, version);
  const tracer = options.spans === false ? undefined : (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, version);
  const recordMetrics = options.metrics !== false;
  const deferred = new DeferredEvents();
  const flush = () => deferred.flush();
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
  const observable = (instrument: ObservableCounter | ObservableUpDownCounter): Tally => {
    const tally = new Tally();
    // The SDK reads asynchronous instruments before the histograms: events still queued are recorded first.
    instrument.addCallback((result) => {
      flush();
      tally.observe(result);
    });
    return tally;
  };
  const tallies = {
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
  const seenHolds = new SeenHolds();
  const sets = new AttributeSets(options);

  function recordStart(event: AcquireStartEvent, startedAt: number, parent: Context | undefined): void {
    const attributes = sets.of(event).calls[event.operation];
    const waiting = recordMetrics && event.operation === "acquire";
    if (waiting) tallies.waiters.add(attributes, 1);
    pending.set(event.callId, { attributes, waitBudgetMs: event.waitMs, waiting, startedAt, parent });
  }

  /** Ends the call's waiter count, counts the outcome and records its span, which ended at `endedAt`. */
  function recordOutcome(event: AcquireEventBase & { waitMs: number }, outcome: AcquireOutcome, endedAt: number, error?: unknown): void {
    const call = pending.get(event.callId);
    pending.delete(event.callId);
    if (call?.waiting === true) tallies.waiters.add(call.attributes, -1);
    if (recordMetrics) {
      const labelSets = sets.of(event);
      if (outcome === "error") tallies.acquisitions.add(labelSets.failure(event.operation, errorType(error)), 1);
      else {
        const outcomeAttributes = labelSets.outcomes[event.operation][outcome];
        tallies.acquisitions.add(outcomeAttributes, 1);
        waitDuration.record(event.waitMs / 1000, outcomeAttributes);
        if (outcome === "timeout") tallies.timeouts.add(labelSets.calls[event.operation], 1);
      }
    }
    if (tracer !== undefined && call !== undefined) recordAcquireSpan(tracer, call, event, outcome, endedAt, error);
  }

  function recordGranted(event: AcquireGrantedEvent, endedAt: number): void {
    if (recordMetrics && event.holdCount === 1) {
      seenHolds.granted(event);
      tallies.held.add(sets.of(event).base, 1);
    }
    recordOutcome(event, "granted", endedAt);
  }

  function recordHoldEnd(event: ReleaseEvent | LostEvent, outcome: HoldOutcome): void {
    if (!recordMetrics) return;
    const labelSets = sets.of(event);
    if (seenHolds.ended(event)) tallies.held.add(labelSets.base, -1);
    holdDuration.record(event.holdMs / 1000, labelSets.holdEnds[outcome]);
    if (outcome === "lost") tallies.lost.add(labelSets.base, 1);
  }

  const recorders: Record<string, EventRecorder> = {
    [LOCK_CHANNELS.acquireStart]: recordStart,
    [LOCK_CHANNELS.acquireGranted]: recordGranted,
    [LOCK_CHANNELS.acquireTimeout]: (event: AcquireTimeoutEvent, endedAt: number) => recordOutcome(event, "timeout", endedAt),
    [LOCK_CHANNELS.acquireAborted]: (event: AcquireAbortedEvent, endedAt: number) => recordOutcome(event, "aborted", endedAt),
    [LOCK_CHANNELS.acquireError]: (event: AcquireErrorEvent, endedAt: number) => recordOutcome(event, "error", endedAt, event.error),
    [LOCK_CHANNELS.release]: (event: ReleaseEvent) => recordHoldEnd(event, "released"),
    [LOCK_CHANNELS.lost]: (event: LostEvent) => recordHoldEnd(event, "lost"),
    [LOCK_CHANNELS.renew]: (event: RenewEvent) => {
      if (recordMetrics) tallies.renewals.add(sets.of(event).base, 1);
    },
    [LOCK_CHANNELS.renewFailure]: (event: RenewFailureEvent) => {
      if (recordMetrics) tallies.renewalFailures.add(sets.of(event).renewFailure(errorType(event.error)), 1);
    },
  };
  // Spans need what is true only when the event happens: the time of a call's start and outcome, the caller's context.
  const listen = (recorder: EventRecorder) =>
    tracer === undefined
      ? (event: unknown) => deferred.add(recorder, event, 0, undefined)
      : recorder === recordStart
        ? (event: unknown) => deferred.add(recorder, event, performance.now(), context.active())
        : (event: unknown) => deferred.add(recorder, event, performance.now(), undefined);
  const subscribed = Object.entries(recorders).map(([name, recorder]) => {
    const listener = listen(recorder);
    subscribe(name, listener);
    return () => unsubscribe(name, listener);
  });

  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const unsubscribeOne of subscribed) unsubscribeOne();
    flush();
    // Calls still in flight will publish no outcome we hear: end their spans and take them off the waiter gauge.
    const closedAt = performance.now();
    for (const call of pending.values()) {
      if (call.waiting) tallies.waiters.add(call.attributes, -1);
      if (tracer !== undefined) startAcquireSpan(tracer, call).end(closedAt);
    }
    pending.clear();
  };
  return { close, flush, [Symbol.dispose]: close };
}
