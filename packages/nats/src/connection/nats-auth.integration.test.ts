import { LockError, LockErrorCode } from "@distlock/core";
import { startNats } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { NatsLockProvider } from "../nats-lock-provider.js";
import type { NatsLockProviderOptions } from "../options/nats-lock-provider-options.js";

const withUser = await startNats({ args: ["--user", "alice", "--pass", "wonderland-7"] });
const withToken = await startNats({ args: ["--auth", "t0ken-9f2"] });
const withTls = await startNats({ tls: true });
afterAll(() => Promise.all([withUser.close(), withToken.close(), withTls.close()]));

const hostOf = (url: string) => url.slice("nats://".length);

/** One take and release through a provider built from `options`; closes it. */
async function takeAndRelease(options: NatsLockProviderOptions): Promise<void> {
  const provider = new NatsLockProvider({ connectTimeoutMs: 2_000, commandTimeoutMs: 2_000, ...options });
  try {
    const lock = await provider.tryAcquire("auth", { ttlMs: 10_000 });
    expect(lock?.holdCount).toBe(1);
    await lock?.release();
  } finally {
    await provider.close();
  }
}

/** The error a take through a provider built from `options` rejects with. */
async function refusal(options: NatsLockProviderOptions): Promise<Error> {
  const provider = new NatsLockProvider({ connectTimeoutMs: 2_000, commandTimeoutMs: 2_000, ...options });
  try {
    return await provider.tryAcquire("auth").then(
      () => {
        throw new Error("expected the server to refuse the credentials");
      },
      (error: Error) => error,
    );
  } finally {
    await provider.close();
  }
}

describe("credentials", () => {
  it("connect with the URL's user info, or the user and pass options", async () => {
    await takeAndRelease({ url: `nats://alice:wonderland-7@${hostOf(withUser.url)}/auth` });
    await takeAndRelease({ url: `${withUser.url}/auth`, user: "alice", pass: "wonderland-7" });
  });

  it("connect with a token", async () => {
    await takeAndRelease({ url: `${withToken.url}/auth`, token: "t0ken-9f2" });
  });

  it("that the server refuses are BACKEND_UNAVAILABLE, and neither the password nor the token is in the message", async () => {
    const badPassword = await refusal({ url: `nats://alice:not-wonderland@${hostOf(withUser.url)}/auth` });
    expect(LockError.is(badPassword, LockErrorCode.BackendUnavailable), String(badPassword)).toBe(true);
    expect(`${badPassword.message} ${String((badPassword as { cause?: unknown }).cause)}`).not.toContain("not-wonderland");
    const badToken = await refusal({ url: `${withToken.url}/auth`, token: "wrong-t0ken" });
    expect(LockError.is(badToken, LockErrorCode.BackendUnavailable), String(badToken)).toBe(true);
    expect(`${badToken.message} ${String((badToken as { cause?: unknown }).cause)}`).not.toContain("wrong-t0ken");
  });
});

describe("TLS", () => {
  it("connects to a server that requires TLS and client certificates with the tls files option", async () => {
    const tls = withTls.clientTls as NonNullable<typeof withTls.clientTls>;
    await takeAndRelease({ url: `${withTls.url}/auth`, tls: { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile } });
  });

  it("is refused by that server without a client certificate, as BACKEND_UNAVAILABLE", async () => {
    const tls = withTls.clientTls as NonNullable<typeof withTls.clientTls>;
    const error = await refusal({ url: `${withTls.url}/auth?tls=true`, tls: { caFile: tls.caFile } });
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
  });
});
