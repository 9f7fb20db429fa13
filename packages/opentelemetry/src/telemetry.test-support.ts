import { LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { type Attributes, type HrTime, SpanStatusCode } from "@opentelemetry/api";
import { AggregationTemporality, type DataPoint, type Histogram, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect } from "vitest";

/** A reader the test collects from when it wants, instead of on a timer. */
class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** A real OpenTelemetry SDK with in-memory metric collection and span export. */
export class TestTelemetry {
  readonly #reader = new ManualReader();
  readonly #spans = new InMemorySpanExporter();
  readonly meterProvider = new MeterProvider({ readers: [this.#reader] });
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.#spans)] });

  /** Every data point recorded so far, by metric name. */
  async collect(): Promise<Metrics> {
    const { resourceMetrics, errors } = await this.#reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, "metric collection failed");
    return new Metrics(resourceMetrics);
  }

  /** Every span ended so far. */
  spans(name?: string): ReadableSpan[] {
    const spans = this.#spans.getFinishedSpans();
    return name === undefined ? spans : spans.filter((span) => span.name === name);
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.meterProvider.shutdown(), this.tracerProvider.shutdown()]);
  }
}

export class Metrics {
  readonly #points: Map<string, Array<DataPoint<unknown>>>;

  constructor(resourceMetrics: ResourceMetrics) {
    this.#points = new Map(
      resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => [metric.descriptor.name, metric.dataPoints as Array<DataPoint<unknown>>])),
    );
  }

  /** The data points of `name` whose attributes include `match`. */
  points(name: string, match: Attributes = {}): Array<DataPoint<unknown>> {
    return (this.#points.get(name) ?? []).filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value));
  }

  /** The summed value of a counter or up-down counter over the matching points (0 with none). */
  sum(name: string, match: Attributes = {}): number {
    return this.points(name, match).reduce((total, point) => total + (point.value as number), 0);
  }

  /** The matching histogram points folded into one count, sum and minimum. */
  histogram(name: string, match: Attributes = {}): { count: number; sum: number; min: number } {
    const values = this.points(name, match).map((point) => point.value as Histogram);
    return {
      count: values.reduce((total, value) => total + value.count, 0),
      sum: values.reduce((total, value) => total + (value.sum ?? 0), 0),
      min: Math.min(...values.map((value) => value.min ?? Number.POSITIVE_INFINITY)),
    };
  }

  /** Every attribute value of every point, for checks of what the attributes reveal. */
  attributeText(): string {
    return JSON.stringify([...this.#points.values()].flat().map((point) => point.attributes));
  }
}

const hrTimeToMilliseconds = ([seconds, nanos]: readonly [number, number]) => seconds * 1000 + nanos / 1e6;
/** How far apart the SDK may place two spans' clocks: it reads its wall-clock offset from Date.now() per span. */
const SPAN_CLOCK_SLACK_MS = 1;

/** Every attribute and event attribute value of `spans`, as text. */
export function spanAttributeText(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(spans.map((span) => [span.attributes, span.events.map((event) => event.attributes ?? {})]));
}

/** The owner secret of the first holder in `contendedRun`; no attribute may ever show it. */
export const OWNER_SECRET = "owner-secret-4f1c9a7e2b";

/** What `contendedRun` saw between its steps. */
export interface ContendedRunFacts {
  /** Collected while the first holder holds, the second waits and the third has timed out. */
  readonly whileWaiting: Metrics;
  /** Collected after both holds ended. */
  readonly after: Metrics;
  readonly tokens: readonly [bigint | null, bigint | null];
}

/**
 * A small contended run on one key: `first` holds it, `second` waits for it, `third` gives up after 50 ms, then the key
 * passes from `first` to `second`, who releases it.
 */
export async function contendedRun(
  telemetry: TestTelemetry,
  providers: { first: LockProvider; second: LockProvider; third: LockProvider },
  key: string,
): Promise<ContendedRunFacts> {
  const first = await providers.first.acquire(key, { ttlMs: 10_000, owner: OWNER_SECRET });
  const waiting = providers.second.acquire(key, { ttlMs: 10_000, waitMs: 20_000 });
  const timedOut = await providers.third.acquire(key, { ttlMs: 10_000, waitMs: 50 }).then(
    () => false,
    (error: unknown) => LockError.is(error, LockErrorCode.LockTimeout),
  );
  if (!timedOut) throw new Error("the third caller should have timed out");
  const whileWaiting = await telemetry.collect();
  await first.release();
  const second = await waiting;
  await second.release();
  return { whileWaiting, after: await telemetry.collect(), tokens: [first.fencingToken, second.fencingToken] };
}

/** What every backend must show for `contendedRun`: two grants, one timeout, one wait, two holds, spans to match. */
export function expectContendedRunRecorded(telemetry: TestTelemetry, facts: ContendedRunFacts, backend: string, key: string): void {
  const { whileWaiting, after } = facts;
  const on = { "distlock.backend": backend };
  expect(whileWaiting.sum("distlock.lock.held", on)).toBe(1);
  expect(whileWaiting.sum("distlock.lock.waiters", on)).toBe(1);
  expect(whileWaiting.sum("distlock.lock.timeouts", on)).toBe(1);

  expect(after.sum("distlock.lock.acquisitions", { ...on, "distlock.outcome": "granted", "distlock.operation": "acquire" })).toBe(2);
  expect(after.sum("distlock.lock.acquisitions", { ...on, "distlock.outcome": "timeout", "distlock.operation": "acquire" })).toBe(1);
  expect(after.sum("distlock.lock.timeouts", on)).toBe(1);
  expect(after.sum("distlock.lock.held", on)).toBe(0);
  expect(after.sum("distlock.lock.waiters", on)).toBe(0);
  expect(after.sum("distlock.lock.lost", on)).toBe(0);
  const timeoutWait = after.histogram("distlock.lock.wait.duration", { ...on, "distlock.outcome": "timeout" });
  expect(timeoutWait.count).toBe(1);
  expect(timeoutWait.sum).toBeGreaterThanOrEqual(0.045);
  expect(after.histogram("distlock.lock.wait.duration", { ...on, "distlock.outcome": "granted" }).count).toBe(2);
  expect(after.histogram("distlock.lock.hold.duration", { ...on, "distlock.outcome": "released" }).count).toBe(2);

  const spans = telemetry.spans("distlock.acquire").filter((span) => span.attributes["distlock.backend"] === backend);
  expect(spans.map((span) => span.attributes["distlock.outcome"]).sort()).toEqual(["granted", "granted", "timeout"]);
  const timeoutSpan = spans.find((span) => span.attributes["distlock.outcome"] === "timeout");
  expect(timeoutSpan?.status).toMatchObject({ code: SpanStatusCode.ERROR });
  expect(timeoutSpan?.attributes["distlock.wait_budget_ms"]).toBe(50);
  const grantedTokens = spans.filter((span) => span.attributes["distlock.outcome"] === "granted").map((span) => span.attributes["distlock.fencing_token"]);
  expect(grantedTokens.sort()).toEqual(
    facts.tokens
      .filter((token) => token !== null)
      .map(String)
      .sort(),
  );
  // The waiter's span covers its wait: it began before the timed-out call and ended after it. The SDK puts each span on
  // the wall clock with an offset it reads from Date.now() (1 ms resolution) when it creates the span, so the times of
  // two spans created apart may disagree by that much; a span's own duration is exact.
  const waiterSpan = spans.find((span) => span.attributes["distlock.wait_budget_ms"] === 20_000);
  const at = (time: HrTime | undefined) => hrTimeToMilliseconds(time ?? [0, 0]);
  expect(at(waiterSpan?.startTime)).toBeLessThanOrEqual(at(timeoutSpan?.startTime) + SPAN_CLOCK_SLACK_MS);
  expect(at(waiterSpan?.endTime)).toBeGreaterThanOrEqual(at(timeoutSpan?.endTime) - SPAN_CLOCK_SLACK_MS);
  expect(at(waiterSpan?.duration)).toBeGreaterThan(at(timeoutSpan?.duration));

  for (const text of [after.attributeText(), spanAttributeText(spans)]) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(OWNER_SECRET);
  }
}
