import type { MeterProvider } from "@opentelemetry/sdk-metrics";
import type { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";

/** Wait and hold buckets as `instrumentLocks` asks for them. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const GRANTED = Object.freeze({ "distlock.backend": "redis", "distlock.operation": "acquire", "distlock.outcome": "granted" });
const RELEASED = Object.freeze({ "distlock.backend": "redis", "distlock.outcome": "released" });

/** What one acquire+release shows the replay. */
export type SdkReplay = (startedAt: number, grantedAt: number, releasedAt: number, fencingToken: bigint | null) => void;

/**
 * The OpenTelemetry SDK calls `instrumentLocks` makes for one uncontended acquire+release, made by hand right after
 * it: one acquire span with its attributes, a wait and a hold histogram record. The floor any instrumentation pays.
 */
export function sdkReplay(telemetry: { meterProvider: MeterProvider; tracerProvider: BasicTracerProvider }): SdkReplay {
  const meter = telemetry.meterProvider.getMeter("sdk-replay");
  const tracer = telemetry.tracerProvider.getTracer("sdk-replay");
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  const wait = meter.createHistogram("replay.wait.duration", { unit: "s", advice });
  const hold = meter.createHistogram("replay.hold.duration", { unit: "s", advice });
  return (startedAt, grantedAt, releasedAt, fencingToken) => {
    const attributes = { ...GRANTED, "distlock.fencing_token": String(fencingToken), "distlock.hold_count": 1 };
    tracer.startSpan("distlock.acquire", { attributes, startTime: startedAt }).end(grantedAt);
    wait.record((grantedAt - startedAt) / 1000, GRANTED);
    hold.record((releasedAt - grantedAt) / 1000, RELEASED);
  };
}
