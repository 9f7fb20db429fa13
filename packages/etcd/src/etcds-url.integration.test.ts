import { monotonicNow } from "@distlock/core";
import { startEtcd } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { urlProviders } from "../test/url-providers.js";

// The harness starts plain-HTTP members only, so this checks the one thing it can: that etcds:// really
// speaks TLS (no silent plaintext fallback). A TLS member would need the harness changes in the README.
const server = await startEtcd();
afterAll(() => server.close());

describe("etcds:// URLs", () => {
  const { provider, unavailable } = urlProviders();

  it("connects with TLS: against a plaintext member it fails fast with BACKEND_UNAVAILABLE and takes no lock", async () => {
    const key = `tls-${monotonicNow()}`;
    const plain = provider(`etcd://127.0.0.1:${server.port}?requestTimeoutMs=1000&dialTimeoutMs=1000`);
    expect(await plain.inspect(key)).toBeNull();

    const started = monotonicNow();
    const error = await unavailable(`etcds://127.0.0.1:${server.port}?requestTimeoutMs=1000&dialTimeoutMs=1000`, key);
    expect(error.message).toContain(`https://127.0.0.1:${server.port}`);
    expect(monotonicNow() - started).toBeLessThan(10_000);
    expect(await plain.inspect(key)).toBeNull();
  });
});
