import { invalidConfigOf } from "@distlock/conformance";
import { describe, expect, it } from "vitest";
import { NatsLockProvider } from "../nats-lock-provider.js";
import { DEFAULT_NATS_LOCK_OPTIONS, type NatsLockProviderOptions } from "./nats-lock-provider-options.js";
import { resolveNatsLockOptions } from "./resolve-nats-lock-options.js";

// Nothing listens here; no test in this file connects (a constructor must not).
const URL = "nats://127.0.0.1:1";

describe("nats provider options", () => {
  it("takes the servers, the bucket and the user from the URL, and the defaults for the rest", () => {
    const resolved = resolveNatsLockOptions({ url: "nats://alice:s3cret@h1:4222,h2/orders?replicas=3" });
    expect(resolved).toMatchObject({ ...DEFAULT_NATS_LOCK_OPTIONS, bucket: "orders", replicas: 3, servers: ["h1:4222", "h2:4222"] });
    expect(resolved.credentials).toEqual({ kind: "user", user: "alice", pass: "s3cret" });
    expect(resolved.tls).toBeUndefined();
  });

  it("lets options win over the URL, and reads a token and TLS files", () => {
    const resolved = resolveNatsLockOptions({ url: `${URL}/from-url`, bucket: "from-options", token: "t0k3n", tls: { caFile: "/ca.pem" } });
    expect(resolved).toMatchObject({ bucket: "from-options", credentials: { kind: "token", token: "t0k3n" }, tls: { caFile: "/ca.pem" } });
    expect(resolveNatsLockOptions({ url: `${URL}?tls=true` }).tls).toEqual({});
  });

  it.each([
    ["no URL", {}, "options.url"],
    ["another backend's URL", { url: "redis://127.0.0.1:6379" }, "url.scheme"],
    ["a bucket name with a dot", { url: `${URL}/a.b` }, "url.path"],
    ["an empty bucket option", { url: URL, bucket: "" }, "options.bucket"],
    ["zero replicas", { url: URL, replicas: 0 }, "options.replicas"],
    ["six replicas in the URL", { url: `${URL}?replicas=6` }, "url.replicas"],
    ["an unknown storage", { url: URL, storage: "disk" }, "options.storage"],
    ["a NaN command timeout", { url: URL, commandTimeoutMs: Number.NaN }, "options.commandTimeoutMs"],
    ["an unreadable connect timeout", { url: `${URL}?connectTimeoutMs=soon` }, "url.connectTimeoutMs"],
    ["an unknown option", { url: URL, retries: 3 }, "options.retries"],
    ["an unknown URL parameter", { url: `${URL}?retries=3` }, "url.retries"],
    ["a token and a user", { url: URL, token: "t", user: "u" }, "options.token"],
    ["a password without a user", { url: URL, pass: "p" }, "options.user"],
    ["an empty token", { url: URL, token: "" }, "options.token"],
    ["a TLS key without a certificate", { url: URL, tls: { keyFile: "/k.pem" } }, "options.tls.certFile"],
    ["an unknown TLS option", { url: URL, tls: { ca: "pem" } }, "options.tls.ca"],
    ["an unreadable tls parameter", { url: `${URL}?tls=maybe` }, "url.tls"],
  ])("rejects %s, naming the field, before connecting", (_, options, field) => {
    expect(invalidConfigOf(() => new NatsLockProvider(options as NatsLockProviderOptions)).field).toBe(field);
  });

  it("never puts a password or a token in a message", () => {
    const byUrl = invalidConfigOf(() => new NatsLockProvider({ url: "nats://alice:hunter2@h1:4222/a.b" }));
    expect(`${byUrl.message} ${JSON.stringify(byUrl)}`).not.toContain("hunter2");
    const byToken = invalidConfigOf(() => new NatsLockProvider({ url: URL, token: "tok-secret", user: "u" }));
    expect(`${byToken.message} ${JSON.stringify(byToken)}`).not.toContain("tok-secret");
  });
});
