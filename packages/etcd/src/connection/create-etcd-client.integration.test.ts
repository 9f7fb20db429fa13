import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { pollFor, startEtcd } from "@distlock/test-servers";
import { describe, expect, it } from "vitest";
import { EtcdLockProvider } from "../etcd-lock-provider.js";
import { MEMBER_PAUSE_MS } from "./create-etcd-client.js";

describe("the etcd client a provider creates", () => {
  it("calls a member again once its pause after three failures in a row is over, so a short outage does not outlast a short lease", async () => {
    const server = await startEtcd();
    const provider = new EtcdLockProvider({ hosts: [server.endpoint], requestTimeoutMs: 500 });
    try {
      expect(await provider.inspect("probe")).toBeNull();
      await server.kill();
      // Each call is three attempts (etcd3's retries): two calls trip the member's breaker.
      for (let i = 0; i < 2; i++) {
        const failure = await provider.inspect("probe").then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(LockError.is(failure, LockErrorCode.BackendUnavailable), String(failure)).toBe(true);
      }
      const failedAt = monotonicNow();
      await server.start();
      const backAt = monotonicNow();
      const servedAt = await pollFor(
        async () => ((await provider.inspect("probe").catch(() => "refused")) === null ? monotonicNow() : undefined),
        10_000,
        "the provider was not served within 10 s of the member's restart",
      );
      // Served once the member is back and the pause is over (etcd3's own pause refused every call for 5 s).
      expect(servedAt - Math.max(backAt, failedAt + MEMBER_PAUSE_MS)).toBeLessThan(2_500);
    } finally {
      await provider.close();
      await server.close();
    }
  });
});
