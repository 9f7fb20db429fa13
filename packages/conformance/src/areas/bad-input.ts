import { LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

const BAD_KEYS: Array<[string, unknown]> = [
  ["empty", ""],
  ["oversized", "k".repeat(257)],
  ["number", 42],
  ["null", null],
  ["undefined", undefined],
  ["object", { key: "k" }],
  ["control characters", "a\nb"],
];

const BAD_OPTIONS: Array<[string, unknown, string]> = [
  ["ttlMs 0", { ttlMs: 0 }, "options.ttlMs"],
  ["negative ttlMs", { ttlMs: -5 }, "options.ttlMs"],
  ["NaN ttlMs", { ttlMs: Number.NaN }, "options.ttlMs"],
  ["Infinity ttlMs", { ttlMs: Number.POSITIVE_INFINITY }, "options.ttlMs"],
  ["string ttlMs", { ttlMs: "1000" }, "options.ttlMs"],
  ["negative waitMs", { waitMs: -1 }, "options.waitMs"],
  ["NaN waitMs", { waitMs: Number.NaN }, "options.waitMs"],
  ["Infinity waitMs", { waitMs: Number.POSITIVE_INFINITY }, "options.waitMs"],
  ["unknown option", { ttl: 1000 }, "options.ttl"],
  ["non-signal signal", { signal: "stop" }, "options.signal"],
  ["non-boolean autoRenew", { autoRenew: "yes" }, "options.autoRenew"],
  ["empty owner", { owner: "" }, "options.owner"],
  ["options not an object", "fast", "options"],
];

async function expectInvalid(call: Promise<unknown>, field: string) {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(LockError.is(error, LockErrorCode.InvalidArgument), String(error)).toBe(true);
  expect((error as { field?: string }).field).toBe(field);
}

/**
 * 8. Bad input is rejected with INVALID_ARGUMENT naming the field, before any server call: the
 * calls go to a provider that is already closed, so reaching the server would fail differently.
 */
export function describeBadInput(options: ResolvedConformanceOptions): void {
  describe("bad input", () => {
    const harness = useHarness(options);

    async function closedProvider(): Promise<LockProvider> {
      const provider = await harness.provider();
      await provider.close();
      return provider;
    }

    it.each(BAD_KEYS)("rejects a %s key in every method", async (_, key) => {
      const provider = await closedProvider();
      await expectInvalid(provider.acquire(key as string), "key");
      await expectInvalid(provider.tryAcquire(key as string), "key");
      await expectInvalid(provider.inspect(key as string), "key");
      await expectInvalid(provider.forceRelease(key as string), "key");
    });

    it.each(BAD_OPTIONS)("rejects %s", async (_, bad, field) => {
      const provider = await closedProvider();
      await expectInvalid(provider.acquire("valid-key", bad as never), field);
      await expectInvalid(provider.tryAcquire("valid-key", bad as never), field);
    });

    it("rejects a bad ttl on renew without touching the lease", async () => {
      const lock = await (await harness.provider()).acquire(harness.key("renew-input"), { ttlMs: options.ttlMs * 10 });
      const before = lock.validUntil;
      await expectInvalid(lock.renew(-1), "options.ttlMs");
      await expectInvalid(lock.renew(Number.NaN), "options.ttlMs");
      expect(lock.validUntil).toBe(before);
      await lock.release();
    });

    it("a closed provider refuses valid calls with PROVIDER_CLOSED", async () => {
      const provider = await closedProvider();
      const error = await provider.acquire("valid-key").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(LockError.is(error, LockErrorCode.ProviderClosed)).toBe(true);
    });
  });
}
