import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { LOCK_CHANNELS } from "@distlock/core";
import { instrumentLocks } from "@distlock/opentelemetry";
import { RedisLockProvider } from "@distlock/redis";
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import {
  type BenchRow,
  type BenchScale,
  type BenchTable,
  measureOps,
  pairedRoundsTable,
  scaledCount,
  summarizeTurns,
  type TurnSample,
  turnOrder,
} from "../harness/index.js";
import { eventGateNs } from "./event-gate.js";
import { type SdkReplay, sdkReplay } from "./sdk-replay.js";

export const NO_SUBSCRIBER = "distlock, no subscriber";
export const NOOP_SUBSCRIBERS = "distlock, a no-op subscriber on every channel";
export const OPENTELEMETRY = "distlock + @distlock/opentelemetry (SDK metrics and spans)";
export const SDK_REPLAY = "distlock, no subscriber, + the same SDK calls by hand (one span, two histogram records)";
// Short turns, many rounds: a noisy neighbour's burst lands in one subject's turn less often, and moves its median less.
const ROUNDS = 24;
const ITERATIONS = 12_000;
const WARM_UP = 500;

/** One subject: how its turn is set up and torn down around the same provider loop. */
interface Instrumented {
  readonly name: string;
  /** Starts listening; returns what stops it. */
  readonly listen: () => () => void;
  /** Called after each acquire+release of its turns. */
  readonly replay?: SdkReplay;
}

/**
 * Uncontended Redis acquire+release with nobody listening to core's events, with no-op listeners, and with the
 * OpenTelemetry SDK; and the OpenTelemetry turns against each other subject's in the same rounds.
 */
export async function instrumentationScenario(url: string, scale: BenchScale): Promise<BenchTable[]> {
  const telemetry = openTelemetry();
  const subjects: Instrumented[] = [
    { name: NO_SUBSCRIBER, listen: () => () => undefined },
    { name: NOOP_SUBSCRIBERS, listen: noopSubscribers },
    { name: OPENTELEMETRY, listen: () => disposer(instrumentLocks(telemetry)) },
    { name: SDK_REPLAY, listen: () => () => undefined, replay: sdkReplay(telemetry) },
  ];
  const provider = new RedisLockProvider({ url });
  let replay: SdkReplay | undefined;
  const loop = async (i: number) => {
    const startedAt = performance.now();
    const lock = await provider.acquire(`bench:observability:${i % 2}`, { ttlMs: 10_000 });
    const grantedAt = performance.now();
    await lock.release();
    replay?.(startedAt, grantedAt, performance.now(), lock.fencingToken);
  };
  const perRound = Math.ceil(scaledCount(ITERATIONS, scale) / ROUNDS);
  const turns: TurnSample[][] = subjects.map(() => []);
  try {
    for (const subject of subjects) {
      const stop = subject.listen();
      replay = subject.replay;
      for (let i = 0; i < scaledCount(WARM_UP, scale); i++) await loop(i);
      stop();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, subject] of turnOrder(subjects, round)) {
        const stop = subject.listen();
        replay = subject.replay;
        turns[index]?.push(await measureOps(loop, perRound));
        stop();
      }
    }
  } finally {
    await provider.close();
    await Promise.all([telemetry.meterProvider.shutdown(), telemetry.tracerProvider.shutdown()]);
  }
  const rows: BenchRow[] = subjects.map((subject, index) => ({
    scenario: "uncontended acquire+release",
    subject: subject.name,
    metrics: summarizeTurns(turns[index] ?? [], false),
  }));
  const gateNs = eventGateNs();
  const baseline = rows[0]?.metrics["p50 µs"] ?? Number.NaN;
  rows.push({
    scenario: "the event gate alone, nobody listening",
    subject: "core's acquire gate",
    metrics: { "gate ns/op": gateNs, "gate % of p50": (gateNs / 1000 / baseline) * 100 },
  });
  const scenario = {
    id: "observability-redis-uncontended",
    title: "Redis: uncontended acquire+release, with and without listeners on core's diagnostics_channel events",
  };
  const turnsBySubject = new Map(subjects.map((subject, index) => [subject.name, turns[index] ?? []]));
  const table: BenchTable = {
    ...scenario,
    rows,
    baseline: NO_SUBSCRIBER,
    ratioOf: "p50 µs",
    notes: [
      `- one RedisLockProvider, ${ROUNDS} interleaved rounds of ${perRound} acquire+release per subject; each subject listens only during its own turns`,
      "- the SDK replay: no listener; after each acquire+release the loop itself makes the SDK calls instrumentLocks makes for it (an acquire span with its attributes, a wait and a hold histogram record), synchronously: the floor of any instrumentation with this SDK",
      "- OpenTelemetry: sdk-metrics MeterProvider with a periodic in-memory exporter (60 s), sdk-trace-base BasicTracerProvider with a batch processor into an in-memory exporter",
      "- the gate row: ns per call of the five hasSubscribers reads core makes before an acquire when nobody listens, and that as a share of the no-subscriber p50",
    ],
  };
  return [table, pairedRoundsTable(scenario, OPENTELEMETRY, turnsBySubject)];
}

function noopSubscribers(): () => void {
  const noop = () => undefined;
  const names = Object.values(LOCK_CHANNELS);
  for (const name of names) subscribe(name, noop);
  return () => {
    for (const name of names) unsubscribe(name, noop);
  };
}

function openTelemetry() {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 60_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  return { meterProvider, tracerProvider };
}

function disposer(instrumentation: { close(): void }): () => void {
  return () => instrumentation.close();
}
