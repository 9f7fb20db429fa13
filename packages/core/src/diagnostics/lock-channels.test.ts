import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { LOCK_CHANNELS } from "./lock-channels.js";

type ChannelName = (typeof LOCK_CHANNELS)[keyof typeof LOCK_CHANNELS];

/** Every event published while a test runs, with the name of its channel. */
function recordEvents(): Array<{ channel: ChannelName; event: Record<string, unknown> }> {
  const events: Array<{ channel: ChannelName; event: Record<string, unknown> }> = [];
  for (const name of Object.values(LOCK_CHANNELS)) {
    const listener = (event: unknown) => events.push({ channel: name, event: event as Record<string, unknown> });
    subscribe(name, listener);
    cleanups.push(() => unsubscribe(name, listener));
  }
  return events;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("diagnostics_channel events", () => {
  it("publish an acquire's start and grant, its renewal and its release, with wait and hold times and the token", async () => {
    const events = recordEvents();
    const provider = new MemoryLockProvider({ store: new MemoryLockStore() });
    const lock = await provider.acquire("orders:1", { ttlMs: 5_000, waitMs: 1_000, owner: "secret-owner-123456" });
    await lock.renew();
    await lock.release();
    expect(events.map((e) => e.channel)).toEqual(["distlock:acquire:start", "distlock:acquire:granted", "distlock:renew", "distlock:release"]);
    expect(events[0]?.event).toEqual({ backend: "memory", key: "orders:1", operation: "acquire", waitMs: 1_000, callId: expect.any(Number) });
    expect(events[1]?.event).toMatchObject({ backend: "memory", key: "orders:1", fencingToken: lock.fencingToken, holdCount: 1 });
    expect(events[1]?.event.callId).toBe(events[0]?.event.callId);
    expect(events[1]?.event.waitMs).toBeGreaterThanOrEqual(0);
    expect(events[2]?.event).toMatchObject({ key: "orders:1", ttlMs: 5_000, fencingToken: lock.fencingToken });
    expect(events[3]?.event.holdMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(events, (_, value) => (typeof value === "bigint" ? String(value) : value))).not.toContain("secret-owner");
    await provider.close();
  });

  it("publish a timeout, a refused tryAcquire, an aborted wait and an error", async () => {
    const store = new MemoryLockStore();
    const holder = new MemoryLockProvider({ store });
    const provider = new MemoryLockProvider({ store });
    const held = await holder.acquire("k");
    const events = recordEvents();
    await expect(provider.acquire("k", { waitMs: 20 })).rejects.toMatchObject({ code: "LOCK_TIMEOUT" });
    expect(await provider.tryAcquire("k")).toBeNull();
    const controller = new AbortController();
    const waiting = provider.acquire("k", { signal: controller.signal });
    controller.abort(new Error("caller gave up"));
    await expect(waiting).rejects.toThrow("caller gave up");
    await expect(provider.acquire("", {})).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    const outcomes = events.filter((e) => !e.channel.endsWith(":start")).map((e) => `${e.channel} ${e.event.operation}`);
    expect(outcomes).toEqual([
      "distlock:acquire:timeout acquire",
      "distlock:acquire:timeout tryAcquire",
      "distlock:acquire:aborted acquire",
      "distlock:acquire:error acquire",
    ]);
    expect(events.find((e) => e.channel === "distlock:acquire:aborted")?.event.reason).toBeInstanceOf(Error);
    const callIds = events.map((e) => e.event.callId);
    expect(callIds).toEqual([callIds[0], callIds[0], callIds[2], callIds[2], callIds[4], callIds[4], callIds[6], callIds[6]]);
    expect(new Set(callIds).size).toBe(4);
    await held.release();
    await Promise.all([holder.close(), provider.close()]);
  });

  it("publish a lost hold and the failed renewal that found it gone", async () => {
    const store = new MemoryLockStore();
    const provider = new MemoryLockProvider({ store });
    const admin = new MemoryLockProvider({ store });
    const lock = await provider.acquire("k", { autoRenew: false });
    const events = recordEvents();
    await admin.forceRelease("k");
    await expect(lock.renew()).rejects.toMatchObject({ code: "LOCK_LOST" });
    expect(events.map((e) => e.channel)).toEqual(["distlock:lost", "distlock:renew:failure"]);
    expect(events[0]?.event).toMatchObject({
      backend: "memory",
      key: "k",
      fencingToken: lock.fencingToken,
      reason: "the server no longer shows this owner holding it",
    });
    await Promise.all([provider.close(), admin.close()]);
  });

  it("match each outcome to its start by callId when calls on one key overlap and end out of order", async () => {
    const store = new MemoryLockStore();
    const holder = new MemoryLockProvider({ store });
    const provider = new MemoryLockProvider({ store });
    const held = await holder.acquire("k");
    const events = recordEvents();
    const patient = provider.acquire("k", { waitMs: 5_000 });
    await expect(provider.acquire("k", { waitMs: 10 })).rejects.toMatchObject({ code: "LOCK_TIMEOUT" });
    await held.release();
    const lock = await patient;
    const acquireEvents = events.filter((e) => e.channel.startsWith("distlock:acquire:"));
    const [patientStart, hastyStart, hastyTimeout, patientGrant] = acquireEvents;
    expect(acquireEvents.map((e) => e.channel)).toEqual([
      "distlock:acquire:start",
      "distlock:acquire:start",
      "distlock:acquire:timeout",
      "distlock:acquire:granted",
    ]);
    expect(patientStart?.event.callId).not.toBe(hastyStart?.event.callId);
    expect(hastyTimeout?.event.callId).toBe(hastyStart?.event.callId);
    expect(patientGrant?.event.callId).toBe(patientStart?.event.callId);
    await lock.release();
    await Promise.all([holder.close(), provider.close()]);
  });

  it("publish nothing, and build nothing, when nobody listens", async () => {
    const provider = new MemoryLockProvider({ store: new MemoryLockStore() });
    const lock = await provider.acquire("quiet");
    await lock.release();
    const events = recordEvents();
    expect(events).toEqual([]);
    await provider.close();
  });
});
