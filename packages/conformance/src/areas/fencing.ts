import { describe, expect, it } from "vitest";
import { aborted } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 6. Fencing tokens strictly increase across successive holders of a key. */
export function describeFencing(options: ResolvedConformanceOptions): void {
  describe("fencing", () => {
    const harness = useHarness(options);
    const fencing = options.capabilities.fencing;

    it("reports the fencing capability the suite was told", async () => {
      expect((await harness.provider()).capabilities.fencing).toBe(fencing);
    });

    it.skipIf(!fencing)("tokens strictly increase across successive holders, also after a lease expired", async () => {
      const key = harness.key("fencing");
      const tokens: bigint[] = [];
      for (let i = 0; i < 4; i++) {
        const lock = await (await harness.provider()).acquire(key, { ttlMs: options.ttlMs * 10 });
        tokens.push(lock.fencingToken as bigint);
        await lock.release();
      }
      const expiring = await (await harness.provider()).acquire(key, { ttlMs: options.ttlMs, autoRenew: false });
      tokens.push(expiring.fencingToken as bigint);
      await aborted(expiring.signal);
      const after = await (await harness.provider()).acquire(key, { waitMs: options.ttlMs + options.marginMs });
      tokens.push(after.fencingToken as bigint);
      for (const token of tokens) expect(typeof token).toBe("bigint");
      for (let i = 1; i < tokens.length; i++) expect(tokens[i] as bigint).toBeGreaterThan(tokens[i - 1] as bigint);
      expect((await (await harness.provider()).inspect(key))?.fencingToken).toBe(after.fencingToken);
    });

    it.skipIf(fencing)("without fencing, tokens are null", async () => {
      const lock = await (await harness.provider()).acquire(harness.key("no-fencing"));
      expect(lock.fencingToken).toBeNull();
      await lock.release();
    });
  });
}
