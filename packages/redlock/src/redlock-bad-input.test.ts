import { createLockProvider, type InvalidConfigError, LockError, LockErrorCode } from "@distlock/core";
import { describe, expect, it } from "vitest";
import type { RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

/** Ports nothing listens on: every case must fail validation before a connection is even tried. */
const URL = "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";

function configError(build: () => unknown): InvalidConfigError {
  try {
    build();
  } catch (error) {
    expect(LockError.is(error, LockErrorCode.InvalidConfig), String(error)).toBe(true);
    return error as InvalidConfigError;
  }
  throw new Error("expected INVALID_CONFIG");
}

const BAD_OPTIONS: Array<[string, unknown, string]> = [
  ["options that are not an object", "redlock://h", "options"],
  ["neither url nor clients", {}, "options.url"],
  ["both url and clients", { url: URL, clients: [] }, "options.clients"],
  ["an empty client list", { clients: [] }, "options.clients"],
  ["a client list that is not an array", { clients: "h1,h2" }, "options.clients"],
  ["a client that is not an ioredis client", { clients: [{ host: "h" }] }, "options.clients[0]"],
  ["a non-redlock URL", { url: "redis://127.0.0.1:1" }, "url.scheme"],
  ["a host listed twice", { url: "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:1" }, "url.host"],
  ["a bad port", { url: "redlock://127.0.0.1:1,127.0.0.1:99999" }, "url.port"],
  ["an unknown option", { url: URL, retries: 3 }, "options.retries"],
  ["a zero nodeTimeoutMs", { url: URL, nodeTimeoutMs: 0 }, "options.nodeTimeoutMs"],
  ["a fractional nodeTimeoutMs", { url: URL, nodeTimeoutMs: 1.5 }, "options.nodeTimeoutMs"],
  ["a NaN driftFactor", { url: URL, driftFactor: Number.NaN }, "options.driftFactor"],
  ["a driftFactor of 1", { url: URL, driftFactor: 1 }, "options.driftFactor"],
  ["a negative driftFloorMs", { url: URL, driftFloorMs: -1 }, "options.driftFloorMs"],
  ["a non-boolean fencing", { url: URL, fencing: "yes" }, "options.fencing"],
  ["a non-boolean awaitEveryVote", { url: URL, awaitEveryVote: 0 }, "options.awaitEveryVote"],
  ["a prefix with braces", { url: URL, prefix: "a{b}" }, "options.prefix"],
  ["an unknown URL parameter", { url: `${URL}?timeout=5` }, "url.timeout"],
  ["a non-numeric URL nodeTimeoutMs", { url: `${URL}?nodeTimeoutMs=fast` }, "url.nodeTimeoutMs"],
  ["a URL fencing that is not true/false", { url: `${URL}?fencing=1` }, "url.fencing"],
  ["a URL awaitEveryVote that is not true/false", { url: `${URL}?awaitEveryVote=no` }, "url.awaitEveryVote"],
  ["tls in the URL", { url: `${URL}?tls=true` }, "url.tls"],
];

describe("redlock provider configuration", () => {
  it.each(BAD_OPTIONS)("rejects %s with INVALID_CONFIG naming the field", (_, options, field) => {
    expect(configError(() => new RedlockLockProvider(options as RedlockLockProviderOptions)).field).toBe(field);
  });

  it("rejects a bad option given through createLockProvider, naming it under config", async () => {
    const error = await createLockProvider({ url: URL, nodeTimeoutMs: -1 }).catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.InvalidConfig)).toBe(true);
    expect((error as InvalidConfigError).field).toBe("config.nodeTimeoutMs");
  });

  it("never echoes a password from the URL in an error", () => {
    const error = configError(() => new RedlockLockProvider({ url: "redlock://user:hunter2@127.0.0.1:1,127.0.0.1:1" }));
    expect(error.message).not.toContain("hunter2");
  });

  it("takes tunables from URL parameters and reports the fencing capability from them", async () => {
    const locks = await createLockProvider(`${URL}?fencing=false&nodeTimeoutMs=50`);
    expect(locks.backend).toBe("redlock");
    expect(locks.capabilities.fencing).toBe(false);
    await locks.close();
  });
});
