import { describe, expect, it } from "vitest";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { elect } from "./leader-election.js";

function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const timer = setInterval(() => {
      if (check()) resolve(clearInterval(timer));
      else if (performance.now() - started > timeoutMs) reject(clearInterval(timer) ?? new Error("condition not met in time"));
    }, 5);
  });
}

describe("elect", () => {
  it("exactly one of several candidates leads, and another takes over when it stops", async () => {
    const store = new MemoryLockStore();
    const terms: Array<{ node: number; token: bigint | null }> = [];
    let leading = 0;
    let maxLeading = 0;
    const nodes = [0, 1, 2].map((node) => {
      const provider = new MemoryLockProvider({ store });
      const election = elect(provider, "dispatcher", {
        ttlMs: 200,
        onElected: async (signal, { fencingToken }) => {
          terms.push({ node, token: fencingToken });
          leading += 1;
          maxLeading = Math.max(maxLeading, leading);
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          leading -= 1;
        },
      });
      return { provider, election };
    });
    await until(() => terms.length === 1);
    const first = nodes[terms[0]?.node ?? -1];
    expect((await first?.election.leader())?.holder).toBe(`${(await first?.provider.inspect("dispatcher"))?.holder}`);
    expect(first?.election.isLeader).toBe(true);
    await first?.election.stop();
    await until(() => terms.length === 2);
    expect(terms[1]?.node).not.toBe(terms[0]?.node);
    expect(terms[1]?.token).toBeGreaterThan(terms[0]?.token ?? 0n);
    expect(maxLeading).toBe(1);
    for (const { election, provider } of nodes) {
      await election.stop();
      await provider.close();
    }
  });

  it("a resigning leader steps down, lets another lead, and campaigns again", async () => {
    const store = new MemoryLockStore();
    const elected: number[] = [];
    const elections = [0, 1].map((node) =>
      elect(new MemoryLockProvider({ store }), "resign-test", {
        ttlMs: 500,
        retryDelayMs: 50,
        onElected: () => {
          elected.push(node);
        },
      }),
    );
    await until(() => elected.length === 1);
    const [firstLeader] = elected as [number];
    await elections[firstLeader]?.resign();
    await until(() => elected.length === 2);
    expect(elected[1]).toBe(1 - firstLeader);
    await elections[1 - firstLeader]?.resign();
    await until(() => elected.length === 3);
    expect(elected[2]).toBe(firstLeader);
    await Promise.all(elections.map((e) => e.stop()));
  });

  it("a leader whose lease is lost gets its signal aborted and campaigns again", async () => {
    const store = new MemoryLockStore();
    const provider = new MemoryLockProvider({ store });
    const reasons: unknown[] = [];
    let terms = 0;
    const election = elect(provider, "lossy", {
      ttlMs: 150,
      retryDelayMs: 20,
      onElected: async (signal) => {
        terms += 1;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        reasons.push(signal.reason);
      },
      onError: () => undefined,
    });
    await until(() => terms === 1);
    store.setOutage(true);
    await until(() => reasons.length === 1);
    expect((reasons[0] as { code?: string }).code).toBe("LOCK_LOST");
    store.setOutage(false);
    await until(() => terms === 2);
    await election.stop();
    await provider.close();
  });
});
