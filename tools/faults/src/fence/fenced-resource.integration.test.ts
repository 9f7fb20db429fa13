import { randomUUID } from "node:crypto";
import type { Lock } from "@distlock/core";
import { EtcdLockProvider } from "@distlock/etcd";
import { startEtcd } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { FenceServers } from "./fence-servers.js";
import type { FenceKind } from "./fenced-resource.js";
import { openFencedResource } from "./open-fenced-resource.js";

/** What the SQL and Redis resources read from a lock: its key and token (its signal is never consulted). */
function holding(key: string, token: bigint): Lock {
  return { key, fencingToken: token, signal: AbortSignal.abort() } as unknown as Lock;
}

const fences = new FenceServers();
afterAll(() => fences.close());

describe.each<FenceKind>(["sqlite", "postgres", "mariadb", "redis"])("the %s resource", (kind) => {
  it("accepts tokens not lower than the highest accepted one, numbering the accepted writes 1, 2, …, and refuses a lower one", async () => {
    const server = await fences.get(kind);
    const key = `resource-${randomUUID()}`;
    await server.prepare(key);
    const resource = await openFencedResource(server.target, "unused:");
    try {
      const outcomes = [];
      // A holder whose signal has aborted still reaches the resource: the resource refuses, not the helper.
      for (const token of [5n, 5n, 7n, 6n, 7n, 8n]) outcomes.push(await resource.write(holding(key, token)));
      expect(outcomes).toEqual([
        { accepted: true, seq: 1 },
        { accepted: true, seq: 2 },
        { accepted: true, seq: 3 },
        { accepted: false, seq: 0 },
        { accepted: true, seq: 4 },
        { accepted: true, seq: 5 },
      ]);
    } finally {
      await resource.close();
    }
  });
});

describe("the etcd resource (on the lock's own etcd)", () => {
  it("accepts the holder's writes in revision order, refuses a holder whose hold ended, and counts a write with no answer as not accepted", async () => {
    await using server = await startEtcd();
    const locks = new EtcdLockProvider({ url: server.url });
    const resource = await openFencedResource({ kind: "etcd" }, server.url);
    try {
      const key = `resource-${randomUUID()}`;
      const first = await locks.acquire(key, { ttlMs: 60_000 });
      const accepted = await resource.write(first);
      expect(accepted).toMatchObject({ accepted: true });
      expect(await locks.forceRelease(key)).toBe(true);
      const second = await locks.acquire(key, { ttlMs: 60_000 });
      expect(await resource.write(first)).toEqual({ accepted: false, seq: 0 });
      const next = await resource.write(second);
      expect(next.accepted).toBe(true);
      expect(next.seq).toBeGreaterThan(accepted.seq);

      await server.kill();
      const unanswered = await resource.write(second);
      expect(unanswered).toMatchObject({ accepted: false, seq: 0 });
      expect(unanswered.failure).toMatch(/^GRPC|BrokenCircuitError/);
    } finally {
      await resource.close();
      await locks.close();
    }
  });
});
