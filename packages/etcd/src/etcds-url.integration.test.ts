import { LockError, LockErrorCode, type LockProvider, monotonicNow, resolveLockConfig } from "@distlock/core";
import { startEtcd } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";

// The harness starts plain-HTTP members only, so this checks the one thing it can: that etcds:// really
// speaks TLS (no silent plaintext fallback). A TLS member would need the harness changes in the README.
const server = await startEtcd();
afterAll(() => server.close());

describe("etcds:// URLs", () => {
  const providers: LockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  function provider(url: string): LockProvider {
    const locks = createLockProviderFromConfig(resolveLockConfig(url));
    providers.push(locks);
    return locks;
  }

  it("connects with TLS: against a plaintext member it fails fast with BACKEND_UNAVAILABLE and takes no lock", async () => {
    const key = `tls-${monotonicNow()}`;
    const plain = provider(`etcd://127.0.0.1:${server.port}?requestTimeoutMs=1000&dialTimeoutMs=1000`);
    expect(await plain.inspect(key)).toBeNull();

    const started = monotonicNow();
    const error = await provider(`etcds://127.0.0.1:${server.port}?requestTimeoutMs=1000&dialTimeoutMs=1000`)
      .acquire(key, { waitMs: 0 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect((error as Error).message).toContain(`https://127.0.0.1:${server.port}`);
    expect(monotonicNow() - started).toBeLessThan(10_000);
    expect(await plain.inspect(key)).toBeNull();
  });
});
