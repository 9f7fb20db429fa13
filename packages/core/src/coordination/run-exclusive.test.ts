import { describe, expect, it } from "vitest";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { runExclusive } from "./run-exclusive.js";

describe("runExclusive", () => {
  it("runs the job on one node and skips it on another that tries meanwhile", async () => {
    const store = new MemoryLockStore();
    const [a, b] = [new MemoryLockProvider({ store }), new MemoryLockProvider({ store })];
    let release!: () => void;
    let start!: () => void;
    const started = new Promise<void>((resolve) => (start = resolve));
    const job = () => {
      start();
      return new Promise<string>((resolve) => (release = () => resolve("a ran")));
    };
    const running = runExclusive(a, "nightly", job, { lockAtMostFor: 5_000 });
    // The job runs only once "a" holds the key.
    await started;
    expect(await runExclusive(b, "nightly", () => "b ran", { lockAtMostFor: 5_000 })).toEqual({ ran: false });
    release();
    expect(await running).toEqual({ ran: true, value: "a ran", overran: false });
    expect(await runExclusive(b, "nightly", () => "b ran", { lockAtMostFor: 5_000 })).toEqual({ ran: true, value: "b ran", overran: false });
  });

  it("holds the lock for lockAtLeastFor even when the job is quick", async () => {
    const store = new MemoryLockStore();
    const [a, b] = [new MemoryLockProvider({ store }), new MemoryLockProvider({ store })];
    let run!: () => void;
    const ran = new Promise<void>((resolve) => (run = resolve));
    const started = performance.now();
    const first = runExclusive(
      a,
      "quick",
      () => {
        run();
        return 1;
      },
      { lockAtMostFor: 5_000, lockAtLeastFor: 300 },
    );
    // The job runs only once "a" holds the key.
    await ran;
    expect(await runExclusive(b, "quick", () => 2, { lockAtMostFor: 5_000 })).toEqual({ ran: false });
    await first;
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect((await runExclusive(b, "quick", () => 2, { lockAtMostFor: 5_000 })).ran).toBe(true);
  });

  it("never holds longer than lockAtMostFor: the job's signal aborts and the key frees itself", async () => {
    const store = new MemoryLockStore();
    const [a, b] = [new MemoryLockProvider({ store }), new MemoryLockProvider({ store })];
    const result = await runExclusive(a, "hung", (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve("stopped"))), {
      lockAtMostFor: 200,
    });
    expect(result).toEqual({ ran: true, value: "stopped", overran: true });
    expect((await runExclusive(b, "hung", () => 1, { lockAtMostFor: 200 })).ran).toBe(true);
  });

  it("rejects lockAtLeastFor beyond lockAtMostFor, naming the field", async () => {
    const provider = new MemoryLockProvider({ store: new MemoryLockStore() });
    const error = await runExclusive(provider, "bad", () => 1, { lockAtMostFor: 100, lockAtLeastFor: 200 }).catch((e: unknown) => e);
    expect(LockError.is(error, "INVALID_ARGUMENT") && (error as { field?: string }).field).toBe("options.lockAtLeastFor");
  });
});
