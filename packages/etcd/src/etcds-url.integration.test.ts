import { monotonicNow } from "@distlock/core/internal";
import { startEtcd } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { urlProviders } from "../test/url-providers.js";

const [plainMember, tlsMember, otherTlsMember] = await Promise.all([startEtcd(), startEtcd({ tls: true }), startEtcd({ tls: true })]);
afterAll(() => Promise.all([plainMember.close(), tlsMember.close(), otherTlsMember.close()]));

const FAST = "requestTimeoutMs=1000&dialTimeoutMs=1000";

describe("etcds:// URLs", () => {
  const { provider, unavailable } = urlProviders();

  it("connects with TLS: against a plaintext member it fails fast with BACKEND_UNAVAILABLE and takes no lock", async () => {
    const key = `tls-${monotonicNow()}`;
    const plain = provider(`etcd://127.0.0.1:${plainMember.port}?${FAST}`);
    expect(await plain.inspect(key)).toBeNull();

    const started = monotonicNow();
    const error = await unavailable(`etcds://127.0.0.1:${plainMember.port}?${FAST}`, key);
    expect(error.message).toContain(`https://127.0.0.1:${plainMember.port}`);
    expect(monotonicNow() - started).toBeLessThan(10_000);
    expect(await plain.inspect(key)).toBeNull();
  });

  it("locks over TLS with the CA and a client certificate: excludes a second provider, hands over, raises the token", async () => {
    const key = `tls-round-trip-${monotonicNow()}`;
    const config = { url: tlsMember.url, tls: tlsMember.clientTls };
    expect(tlsMember.url).toMatch(/^etcds:\/\//);
    const [first, second] = [provider(config), provider(config)];
    const held = await first.acquire(key, { ttlMs: 5_000 });
    expect(await second.tryAcquire(key)).toBeNull();
    expect((await second.inspect(key))?.holder).toBe(held.holder);
    const waiting = second.acquire(key, { ttlMs: 5_000, waitMs: 10_000 });
    await held.release();
    const next = await waiting;
    expect(next.fencingToken).toBeGreaterThan(held.fencingToken as bigint);
    await next.release();
    expect(await first.inspect(key)).toBeNull();
  });

  it("without a client certificate the TLS member refuses: BACKEND_UNAVAILABLE, no lock taken", async () => {
    const key = `tls-no-client-cert-${monotonicNow()}`;
    const ca = tlsMember.clientTls?.ca;
    await unavailable({ url: `${tlsMember.url}?${FAST}`, tls: { ca } }, key);
    expect(await provider({ url: tlsMember.url, tls: tlsMember.clientTls }).inspect(key)).toBeNull();
  });

  it("a member whose certificate another CA signed is not trusted: BACKEND_UNAVAILABLE, no lock taken", async () => {
    const key = `tls-wrong-ca-${monotonicNow()}`;
    await unavailable({ url: `${tlsMember.url}?${FAST}`, tls: otherTlsMember.clientTls }, key);
    expect(await provider({ url: tlsMember.url, tls: tlsMember.clientTls }).inspect(key)).toBeNull();
  });
});
