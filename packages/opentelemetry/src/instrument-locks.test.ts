import { MemoryLockProvider, MemoryLockStore } from "@distlock/core";
import { type DiagLogger, DiagLogLevel, diag, SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it, vi } from "vitest";
import { instrumentLocks, type LockInstrumentation } from "./instrument-locks.js";
import { LOCK_METRICS } from "./names.js";
import { contendedRun, expectContendedRunRecorded, OWNER_SECRET, spanAttributeText, TestTelemetry } from "./telemetry.test-support.js";

const silentLogger: DiagLogger = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, verbose: () => undefined };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setUp(options: Parameters<typeof instrumentLocks>[0] = {}): {
  telemetry: TestTelemetry;
  instrumentation: LockInstrumentation;
  store: MemoryLockStore;
} {
  const telemetry = new TestTelemetry();
  const instrumentation = instrumentLocks({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, ...options });
  cleanups.push(
    () => telemetry.shutdown(),
    () => instrumentation.close(),
  );
  return { telemetry, instrumentation, store: new MemoryLockStore() };
}

function memoryProvider(store: MemoryLockStore): MemoryLockProvider {
  const provider = new MemoryLockProvider({ store });
  cleanups.push(() => provider.close());
  return provider;
}

describe("instrumentLocks on the memory backend", () => {
  it("records waits, holds, a timeout and the held and waiting gauges of a contended run, without the key or the owner", async () => {
    const { telemetry, store } = setUp();
    const facts = await contendedRun(telemetry, { first: memoryProvider(store), second: memoryProvider(store), third: memoryProvider(store) }, "orders:42");
    expectContendedRunRecorded(telemetry, facts, "memory", "orders:42");
  });

  it("names the key when asked to, or the label keyLabel makes of it", async () => {
    const raw = setUp({ keyAttribute: true });
    const provider = memoryProvider(raw.store);
    await (await provider.acquire("orders:42")).release();
    const metrics = await raw.telemetry.collect();
    expect(metrics.sum(LOCK_METRICS.acquisitions, { "distlock.key": "orders:42" })).toBe(1);
    expect(metrics.histogram(LOCK_METRICS.holdDuration, { "distlock.key": "orders:42" }).count).toBe(1);
    expect(raw.telemetry.spans("distlock.acquire")[0]?.attributes["distlock.key"]).toBe("orders:42");
    raw.instrumentation.close();

    const labelled = setUp({ keyAttribute: true, keyLabel: (key) => (key.startsWith("orders:") ? "orders" : undefined) });
    const other = memoryProvider(labelled.store);
    await (await other.acquire("orders:43")).release();
    await (await other.acquire("invoices:1")).release();
    const labelledMetrics = await labelled.telemetry.collect();
    expect(labelledMetrics.sum(LOCK_METRICS.acquisitions, { "distlock.key": "orders" })).toBe(1);
    expect(labelledMetrics.sum(LOCK_METRICS.acquisitions)).toBe(2);
    expect(labelledMetrics.attributeText()).not.toContain("orders:43");
    expect(labelledMetrics.attributeText()).not.toContain("invoices");
  });

  it("counts a re-entered lock once in the held gauge and its hold once when the last release ends it", async () => {
    const { telemetry, store } = setUp();
    const provider = memoryProvider(store);
    const outer = await provider.acquire("k", { owner: OWNER_SECRET });
    const inner = await provider.acquire("k", { owner: OWNER_SECRET });
    expect(inner.holdCount).toBe(2);
    expect((await telemetry.collect()).sum(LOCK_METRICS.held)).toBe(1);
    await inner.release();
    expect((await telemetry.collect()).histogram(LOCK_METRICS.holdDuration).count).toBe(0);
    await outer.release();
    const metrics = await telemetry.collect();
    expect(metrics.sum(LOCK_METRICS.held)).toBe(0);
    expect(metrics.sum(LOCK_METRICS.acquisitions, { "distlock.outcome": "granted" })).toBe(2);
    expect(metrics.histogram(LOCK_METRICS.holdDuration, { "distlock.outcome": "released" }).count).toBe(1);
    expect(telemetry.spans("distlock.acquire").map((span) => span.attributes["distlock.hold_count"])).toEqual([1, 2]);
  });

  it("records renewals, a lost hold and the renewal that found it gone", async () => {
    const { telemetry, store } = setUp();
    const provider = memoryProvider(store);
    const lock = await provider.acquire("k", { autoRenew: false });
    await lock.renew();
    await memoryProvider(store).forceRelease("k");
    await expect(lock.renew()).rejects.toMatchObject({ code: "LOCK_LOST" });
    const metrics = await telemetry.collect();
    expect(metrics.sum(LOCK_METRICS.renewals)).toBe(1);
    expect(metrics.sum(LOCK_METRICS.renewalFailures)).toBe(1);
    expect(metrics.sum(LOCK_METRICS.lost, { "distlock.backend": "memory" })).toBe(1);
    expect(metrics.histogram(LOCK_METRICS.holdDuration, { "distlock.outcome": "lost" }).count).toBe(1);
    expect(metrics.sum(LOCK_METRICS.held)).toBe(0);
  });

  it("ends aborted, refused and failed calls with their outcome; only a timed-out wait and an error are span errors", async () => {
    const { telemetry, store } = setUp();
    const holder = memoryProvider(store);
    const provider = memoryProvider(store);
    const held = await holder.acquire("k");
    expect(await provider.tryAcquire("k")).toBeNull();
    const controller = new AbortController();
    const waiting = provider.acquire("k", { signal: controller.signal });
    controller.abort(new Error("caller gave up"));
    await expect(waiting).rejects.toThrow("caller gave up");
    await expect(provider.acquire("")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await held.release();
    const metrics = await telemetry.collect();
    expect(metrics.sum(LOCK_METRICS.acquisitions, { "distlock.operation": "tryAcquire", "distlock.outcome": "timeout" })).toBe(1);
    expect(metrics.sum(LOCK_METRICS.acquisitions, { "distlock.outcome": "aborted" })).toBe(1);
    expect(metrics.sum(LOCK_METRICS.acquisitions, { "distlock.outcome": "error", "error.type": "INVALID_ARGUMENT" })).toBe(1);
    expect(metrics.histogram(LOCK_METRICS.waitDuration, { "distlock.outcome": "aborted" }).count).toBe(1);
    expect(metrics.sum(LOCK_METRICS.waiters)).toBe(0);
    const spans = new Map(
      telemetry.spans("distlock.acquire").map((span) => [`${span.attributes["distlock.operation"]} ${span.attributes["distlock.outcome"]}`, span]),
    );
    expect([...spans.keys()].sort()).toEqual(["acquire aborted", "acquire error", "acquire granted", "tryAcquire timeout"]);
    expect(spans.get("tryAcquire timeout")?.status.code).toBe(SpanStatusCode.UNSET);
    expect(spans.get("acquire aborted")?.status.code).toBe(SpanStatusCode.UNSET);
    expect(spans.get("acquire error")?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans.get("acquire error")?.events.map((event) => event.name)).toEqual(["exception"]);
  });

  it("stops recording when closed, ending the span of a call still waiting", async () => {
    const { telemetry, instrumentation, store } = setUp();
    const holder = memoryProvider(store);
    const held = await holder.acquire("k");
    const waiting = memoryProvider(store).acquire("k");
    expect((await telemetry.collect()).sum(LOCK_METRICS.waiters)).toBe(1);
    instrumentation.close();
    expect(telemetry.spans("distlock.acquire")).toHaveLength(2);
    await held.release();
    await (await waiting).release();
    const metrics = await telemetry.collect();
    expect(metrics.sum(LOCK_METRICS.waiters)).toBe(0);
    expect(metrics.sum(LOCK_METRICS.acquisitions)).toBe(1);
    expect(telemetry.spans("distlock.acquire")).toHaveLength(2);
  });

  it("records a call's span shortly after the call, timed from the call to its outcome", async () => {
    const { telemetry, store } = setUp();
    const provider = memoryProvider(store);
    const before = performance.now();
    const lock = await provider.acquire("k");
    const after = performance.now();
    expect(telemetry.spans("distlock.acquire")).toHaveLength(0);
    await vi.waitFor(() => expect(telemetry.spans("distlock.acquire")).toHaveLength(1), { timeout: 2_000, interval: 5 });
    const [span] = telemetry.spans("distlock.acquire");
    // The SDK shifts explicit times onto the wall clock, so compare durations: the span covers the call, not the recording.
    const durationMs = (span?.duration[0] ?? -1) * 1000 + (span?.duration[1] ?? 0) / 1e6;
    expect(durationMs).toBeGreaterThanOrEqual(0);
    expect(durationMs).toBeLessThanOrEqual(after - before);
    expect(span?.attributes["distlock.fencing_token"]).toBe(String(lock.fencingToken));
    await lock.release();
  });

  it("keeps a throwing keyLabel from reaching the locking code", async () => {
    const { telemetry, instrumentation, store } = setUp({
      keyLabel: () => {
        throw new Error("bad label");
      },
    });
    const errors: unknown[][] = [];
    diag.setLogger({ ...silentLogger, error: (...args: unknown[]) => errors.push(args) }, DiagLogLevel.ERROR);
    cleanups.push(() => diag.disable());
    const provider = memoryProvider(store);
    await (await provider.acquire("k")).release();
    // Recorded later on a timer: a throw there would be an uncaught exception, not this logged error.
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 2_000, interval: 5 });
    expect(String(errors[0]?.[1])).toContain("bad label");
    await (await provider.acquire("k")).release();
    expect(() => instrumentation.flush()).not.toThrow();
    expect(spanAttributeText(telemetry.spans())).not.toContain("bad label");
  });
});
