import { MemoryLockProvider, MemoryLockStore } from "@distlock/core";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instrumentLocks } from "./instrument-locks.js";
import { OWNER_SECRET, spanAttributeText, TestTelemetry } from "./telemetry.test-support.js";
import { withLockSpan } from "./with-lock-span.js";

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  contextManager.disable();
  context.disable();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setUp(): { telemetry: TestTelemetry; store: MemoryLockStore; provider: MemoryLockProvider } {
  const telemetry = new TestTelemetry();
  const store = new MemoryLockStore();
  const provider = new MemoryLockProvider({ store });
  cleanups.push(
    () => telemetry.shutdown(),
    () => provider.close(),
  );
  return { telemetry, store, provider };
}

describe("withLockSpan", () => {
  it("runs the critical section in an active distlock.hold span with the fencing token, a sibling of the acquire span", async () => {
    const { telemetry, provider } = setUp();
    const instrumentation = instrumentLocks({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
    cleanups.push(() => instrumentation.close());
    const tracer = telemetry.tracerProvider.getTracer("test");
    const token = await tracer.startActiveSpan("request", async (request) => {
      const result = await withLockSpan(
        provider,
        "orders:42",
        async (lock) => {
          tracer.startSpan("write").end();
          return lock.fencingToken;
        },
        { tracerProvider: telemetry.tracerProvider, ttlMs: 5_000, owner: OWNER_SECRET },
      );
      request.end();
      return result;
    });
    instrumentation.flush();
    const [request] = telemetry.spans("request");
    const [hold] = telemetry.spans("distlock.hold");
    const [acquire] = telemetry.spans("distlock.acquire");
    const [write] = telemetry.spans("write");
    expect(hold?.attributes).toEqual({ "distlock.backend": "memory", "distlock.fencing_token": String(token), "distlock.hold_count": 1 });
    expect(hold?.status.code).toBe(SpanStatusCode.UNSET);
    expect(write?.parentSpanContext?.spanId).toBe(hold?.spanContext().spanId);
    expect(hold?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(acquire?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(spanAttributeText(telemetry.spans())).not.toContain("orders:42");
    expect(spanAttributeText(telemetry.spans())).not.toContain(OWNER_SECRET);
    expect(await provider.inspect("orders:42")).toBeNull();
  });

  it("marks the span failed with the exception when the critical section throws, and still releases", async () => {
    const { telemetry, provider } = setUp();
    const failure = withLockSpan(
      provider,
      "k",
      () => {
        throw new Error("write failed");
      },
      { tracerProvider: telemetry.tracerProvider, keyAttribute: true },
    );
    await expect(failure).rejects.toThrow("write failed");
    const [hold] = telemetry.spans("distlock.hold");
    expect(hold?.status).toEqual({ code: SpanStatusCode.ERROR, message: "write failed" });
    expect(hold?.events.map((event) => event.name)).toEqual(["exception"]);
    expect(hold?.attributes["distlock.key"]).toBe("k");
    expect(await provider.inspect("k")).toBeNull();
  });

  it("adds a distlock.lost event when the hold is lost during the critical section", async () => {
    const { telemetry, store, provider } = setUp();
    const admin = new MemoryLockProvider({ store });
    cleanups.push(() => admin.close());
    await withLockSpan(
      provider,
      "k",
      async (lock, signal) => {
        await admin.forceRelease("k");
        await expect(lock.renew()).rejects.toMatchObject({ code: "LOCK_LOST" });
        expect(signal.aborted).toBe(true);
      },
      { tracerProvider: telemetry.tracerProvider, autoRenew: false },
    ).catch((error: unknown) => expect(error).toMatchObject({ code: "LOCK_LOST" }));
    const [hold] = telemetry.spans("distlock.hold");
    expect(hold?.events.map((event) => [event.name, event.attributes?.["error.type"]])).toEqual([["distlock.lost", "LOCK_LOST"]]);
  });

  it("uses the global tracer provider by default", async () => {
    const { telemetry, provider } = setUp();
    expect(trace.setGlobalTracerProvider(telemetry.tracerProvider)).toBe(true);
    cleanups.push(() => trace.disable());
    await withLockSpan(provider, "k", () => undefined);
    expect(telemetry.spans("distlock.hold")).toHaveLength(1);
  });
});
