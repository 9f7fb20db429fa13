import { invalidConfigOf } from "@distlock/conformance";
import { resolveLockConfig } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { createLockProviderFromConfig } from "../create-lock-provider-from-config.js";
import { EtcdLockProvider } from "../etcd-lock-provider.js";
import { DEFAULT_ETCD_LOCK_OPTIONS } from "./etcd-lock-provider-options.js";
import { resolveEtcdLockOptions } from "./resolve-etcd-lock-options.js";

describe("etcd provider options", () => {
  it("defaults to a local etcd, the distlock prefix and a 30 s session", () => {
    expect(resolveEtcdLockOptions()).toMatchObject(DEFAULT_ETCD_LOCK_OPTIONS);
  });

  it.each([
    ["an unknown option", { sessionTtl: 5 }, "options.sessionTtl"],
    ["an empty host list", { hosts: [] }, "options.hosts"],
    ["a host without scheme", { hosts: ["127.0.0.1:2379"] }, "options.hosts"],
    ["mixed http and https hosts", { hosts: ["http://a:1", "https://b:2"] }, "options.hosts"],
    ["a prefix with a trailing slash", { prefix: "locks/" }, "options.prefix"],
    ["an empty prefix", { prefix: "" }, "options.prefix"],
    ["a zero session TTL", { sessionTtlMs: 0 }, "options.sessionTtlMs"],
    ["a NaN request timeout", { requestTimeoutMs: Number.NaN }, "options.requestTimeoutMs"],
    ["an infinite recheck interval", { recheckIntervalMs: Number.POSITIVE_INFINITY }, "options.recheckIntervalMs"],
    ["a session shorter than etcd's minimum TTL", { sessionTtlMs: 1000, minTtlMs: 2000 }, "options.sessionTtlMs"],
    ["auth without a password", { auth: { username: "root" } }, "options.auth"],
    ["a TLS key without a certificate", { tls: { key: "pem" } }, "options.tls.cert"],
    ["a client that is not an etcd3 client", { client: {} }, "options.client"],
  ])("rejects %s, naming the field, before connecting", (_, options, field) => {
    expect(invalidConfigOf(() => new EtcdLockProvider(options as never)).field).toBe(field);
  });

  it("advertises etcd's whole-second lease granularity, its minimum TTL, FIFO waiting and revision fencing", async () => {
    const provider = new EtcdLockProvider({ minTtlMs: 1500 });
    expect(provider.capabilities).toEqual({
      fencing: true,
      fifo: true,
      serverClock: true,
      minTtlMs: 2000,
      ttlGranularityMs: 1000,
      listing: true,
      semaphore: true,
      readWriteLock: true,
    });
    await provider.close();
  });
});

describe("etcd:// and etcds:// URLs", () => {
  it("accepts several hosts, a prefix path, credentials and numeric parameters", async () => {
    const provider = createLockProviderFromConfig(
      resolveLockConfig("etcd://app:s3cret@10.0.0.1:2379,10.0.0.2/team/locks?sessionTtlMs=10000&requestTimeoutMs=2000"),
    );
    expect(provider.backend).toBe("etcd");
    await provider.close();
  });

  it.each([
    ["an unknown parameter", "etcd://127.0.0.1:2379?ttl=5", "url.ttl"],
    ["a non-numeric parameter", "etcd://127.0.0.1:2379?sessionTtlMs=soon", "url.sessionTtlMs"],
    ["a negative parameter", "etcd://127.0.0.1:2379?requestTimeoutMs=-1", "url.requestTimeoutMs"],
    ["a prefix with a trailing slash", "etcd://127.0.0.1:2379/locks/", "url.path"],
  ])("rejects %s, naming the field", (_, url, field) => {
    expect(invalidConfigOf(() => createLockProviderFromConfig(resolveLockConfig(url))).field).toBe(field);
  });

  it("takes hosts, prefix, credentials and durations from the URL, and an option over what the URL says", () => {
    const url = "etcds://app:s3cret@10.0.0.1:2379,[::1]/team/locks?sessionTtlMs=10000";
    expect(resolveEtcdLockOptions({ url })).toMatchObject({
      hosts: ["https://10.0.0.1:2379", "https://[::1]:2379"],
      prefix: "team/locks",
      auth: { username: "app", password: "s3cret" },
      sessionTtlMs: 10_000,
    });
    const overridden = resolveEtcdLockOptions({ url, hosts: ["https://e:1"], prefix: "other", sessionTtlMs: 20_000 });
    expect(overridden).toMatchObject({ hosts: ["https://e:1"], prefix: "other", sessionTtlMs: 20_000 });
  });

  it("names an option of createLockProvider's config object config.<name>, and a URL parameter url.<name>", () => {
    const build = (config: Parameters<typeof resolveLockConfig>[0]) => () => createLockProviderFromConfig(resolveLockConfig(config));
    expect(invalidConfigOf(build({ url: "etcd://127.0.0.1:2379", prefix: "a/" })).field).toBe("config.prefix");
    expect(invalidConfigOf(build({ url: "etcd://127.0.0.1:2379?sessionTtlMs=1000", minTtlMs: 2000 })).field).toBe("url.sessionTtlMs");
    expect(invalidConfigOf(build("redis://127.0.0.1:6379")).field).toBe("url.scheme");
  });

  it("never echoes the password in a config error", () => {
    const error = invalidConfigOf(() => createLockProviderFromConfig(resolveLockConfig("etcd://app:hunter2@127.0.0.1:2379?bogus=1")));
    expect(error.message).not.toContain("hunter2");
  });
});
