import { randomUUID } from "node:crypto";
import { type InvalidArgumentError, type Lock, LockErrorCode, type LockProvider } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { expectLockError, queued, until } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/**
 * Characters that are wildcards or escapes in Redis SCAN MATCH, SQL LIKE or both, each with a stand-in that the
 * character would match if the prefix were taken as a pattern instead of literally.
 */
const SPECIAL_CHARACTERS: Array<[string, string]> = [
  ["*", "ZZ"],
  ["?", "Z"],
  ["[ab]", "a"],
  ["%", "WW"],
  ["_", "W"],
  ["\\", ""],
];

const BAD_ARGUMENTS: Array<[string, unknown, unknown, string]> = [
  ["number prefix", 42, undefined, "prefix"],
  ["null prefix", null, undefined, "prefix"],
  ["oversized prefix", "p".repeat(257), undefined, "prefix"],
  ["control characters in the prefix", "a\nb", undefined, "prefix"],
  ["limit 0", "p", { limit: 0 }, "options.limit"],
  ["negative limit", "p", { limit: -1 }, "options.limit"],
  ["fractional limit", "p", { limit: 1.5 }, "options.limit"],
  ["string limit", "p", { limit: "10" }, "options.limit"],
  ["unknown option", "p", { max: 10 }, "options.max"],
  ["options not an object", "p", 10, "options"],
];

/** 10. list shows every held key under a prefix, matched literally, as inspect shows it, and nothing else. */
export function describeListing(options: ResolvedConformanceOptions): void {
  describe("listing keys under a prefix", () => {
    const harness = useHarness(options);
    const ttlMs = options.ttlMs * 10;
    const listing = options.capabilities.listing;
    const root = () => `conformance:list:${randomUUID()}:`;
    const keysOf = async (provider: LockProvider, prefix: string, limit?: number) =>
      (await provider.list(prefix, limit === undefined ? undefined : { limit })).map((state) => state.key);

    it.skipIf(!listing)("lists the held keys under the prefix with holder, count, token, lease and waiters, and no key outside it", async () => {
      const prefix = root();
      const [holderProvider, observer] = [await harness.provider(), await harness.provider()];
      const owner = `secret-${randomUUID()}`;
      const reentered = await holderProvider.acquire(`${prefix}a`, { ttlMs, owner });
      await holderProvider.acquire(`${prefix}a`, { ttlMs, owner });
      const contended = await holderProvider.acquire(`${prefix}b`, { ttlMs });
      await holderProvider.acquire(`${prefix.slice(0, -1)}-outside`, { ttlMs });
      await holderProvider.acquire(`x${prefix}inside-only-as-a-substring`, { ttlMs });
      const controller = new AbortController();
      const waiting = (await harness.provider()).acquire(`${prefix}b`, { ttlMs, signal: controller.signal });
      try {
        await queued(observer, `${prefix}b`, 1);
        const states = await observer.list(prefix);
        expect(states.map((state) => state.key)).toEqual([`${prefix}a`, `${prefix}b`]);
        const [a, b] = states;
        expect(a).toMatchObject({ holder: reentered.holder, holdCount: 2, fencingToken: reentered.fencingToken, waiters: 0 });
        expect(b).toMatchObject({ holder: contended.holder, holdCount: 1, fencingToken: contended.fencingToken });
        expect(b?.waiters).toBe(options.capabilities.fifo ? 1 : 0);
        for (const state of states) {
          expect(state.ttlRemainingMs).toBeGreaterThan(0);
          expect(state.ttlRemainingMs).toBeLessThanOrEqual(ttlMs);
          expect(state).toEqual(await observer.inspect(state.key).then((now) => ({ ...now, ttlRemainingMs: state.ttlRemainingMs })));
        }
        expect(JSON.stringify(states, (_, v) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(owner);
      } finally {
        controller.abort(new Error("done"));
        await Promise.allSettled([waiting]);
      }
    });

    it.skipIf(!listing)("a released, force-released or expired key disappears from the list", async () => {
      const prefix = root();
      const provider = await harness.provider();
      const locks: Lock[] = [];
      for (const name of ["released", "forced", "expired", "kept"]) {
        const short = name === "expired" ? { ttlMs: options.ttlMs, autoRenew: false } : { ttlMs };
        locks.push(await provider.acquire(`${prefix}${name}`, short));
      }
      expect(await keysOf(provider, prefix)).toEqual(["expired", "forced", "kept", "released"].map((name) => `${prefix}${name}`));
      await locks[0]?.release();
      expect(await (await harness.provider()).forceRelease(`${prefix}forced`)).toBe(true);
      expect(await keysOf(provider, prefix)).not.toContain(`${prefix}released`);
      expect(await keysOf(provider, prefix)).not.toContain(`${prefix}forced`);
      const expired = `${prefix}expired`;
      await until(`${expired} no longer listed`, async () => !(await keysOf(provider, prefix)).includes(expired), options.ttlMs + options.marginMs + 10_000);
      expect(await keysOf(provider, prefix)).toEqual([`${prefix}kept`]);
      await locks[3]?.release();
      expect(await provider.list(prefix)).toEqual([]);
    });

    it.skipIf(!listing)("matches a prefix with wildcard and escape characters (* ? [ % _ \\) literally", async () => {
      const base = root();
      const provider = await harness.provider();
      const held = SPECIAL_CHARACTERS.map(([special]) => `${base}x${special}y:k`);
      const lookalikes = SPECIAL_CHARACTERS.map(([, standIn]) => `${base}x${standIn}y:k`);
      await Promise.all([...held, ...lookalikes].map((key) => provider.acquire(key, { ttlMs })));
      for (const [index, [special]] of SPECIAL_CHARACTERS.entries()) {
        expect(await keysOf(provider, `${base}x${special}y:`), `prefix with ${special}`).toEqual([held[index]]);
        expect(await keysOf(provider, `${base}x${special}`), `prefix ending in ${special}`).toEqual([held[index]]);
      }
      expect((await keysOf(provider, base)).length).toBe(held.length + lookalikes.length);
    });

    it.skipIf(!listing)("returns at most limit keys, the first in key order", async () => {
      const prefix = root();
      const provider = await harness.provider();
      const names = ["d", "b", "a", "c"];
      await Promise.all(names.map((name) => provider.acquire(`${prefix}${name}`, { ttlMs })));
      expect(await keysOf(provider, prefix, 2)).toEqual([`${prefix}a`, `${prefix}b`]);
      expect(await keysOf(provider, prefix, 10)).toEqual(["a", "b", "c", "d"].map((name) => `${prefix}${name}`));
      expect(await keysOf(provider, `${prefix}nothing-here`)).toEqual([]);
    });

    it.each(BAD_ARGUMENTS)("rejects a %s with INVALID_ARGUMENT naming the field, before any server call", async (_, prefix, listOptions, field) => {
      const provider = await harness.provider();
      await provider.close();
      const error = await expectLockError(provider.list(prefix as string, listOptions as { limit: number }), LockErrorCode.InvalidArgument);
      expect((error as InvalidArgumentError).field).toBe(field);
    });

    it.skipIf(listing)("a backend that cannot list says so with UNSUPPORTED_OPERATION", async () => {
      const provider = await harness.provider();
      expect(provider.capabilities.listing).toBe(false);
      await expectLockError(provider.list(root()), LockErrorCode.UnsupportedOperation);
    });

    it.skipIf(!listing)("claims the listing capability it proves", async () => {
      expect((await harness.provider()).capabilities.listing).toBe(true);
    });
  });
}
