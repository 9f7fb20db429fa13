import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { createLockProvider, InvalidConfigError, LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { registerLockBackend } from "@distlock/core/driver";
import { afterAll, describe, expect, it } from "vitest";
import { createLockProviderFromConfig, LockdLockProvider, type LockdLockProviderOptions, lockBackend, startLockdServer } from "./index.js";

const lockd = await startLockdServer();

/** A TCP server that accepts and never answers, counting connections: a call to it can only time out. */
const silent = createServer((socket) => sockets.push(socket));
const sockets: Socket[] = [];
await once(silent.listen(0, "127.0.0.1"), "listening");
const silentUrl = `lockd://127.0.0.1:${(silent.address() as { port: number }).port}`;

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  silent.close();
  await lockd.stop();
});

async function configError(creating: () => unknown): Promise<InvalidConfigError> {
  const error = await Promise.resolve()
    .then(creating)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(InvalidConfigError);
  return error as InvalidConfigError;
}

describe("lockd URLs", () => {
  // Test files share their worker's modules, so another file may have registered lockd already: the refusal is shown on
  // a scheme nobody registers.
  it("createLockProvider refuses a scheme no backend registered, and reaches lockd:// once the backend registers its scheme", async () => {
    expect((await configError(() => createLockProvider(lockd.url.replace(/^lockd:/, "lockd-unregistered:")))).field).toBe("url.scheme");
    registerLockBackend(lockBackend.name, createLockProviderFromConfig, { schemes: lockBackend.schemes });
    const provider = await createLockProvider(`${lockd.url}?commandTimeoutMs=2000&prefix=url-test:`);
    const other = await createLockProvider({ url: lockd.url, prefix: "url-test:", holderLabel: "observer" });
    try {
      expect(provider.backend).toBe("lockd");
      const lock = await provider.acquire("registered", { ttlMs: 10_000 });
      expect(await other.inspect("registered")).toMatchObject({ holder: lock.holder, holdCount: 1, fencingToken: lock.fencingToken });
      await lock.release();
      expect(await other.inspect("registered")).toBeNull();
    } finally {
      await Promise.all([provider.close(), other.close()]);
    }
  });

  it.each([
    [{ commandTimeoutMs: 0 }, "options.commandTimeoutMs"],
    [{ connectTimeoutMs: 1.5 }, "options.connectTimeoutMs"],
    [{ prefix: "" }, "options.prefix"],
    [{ prefix: "a\nb" }, "options.prefix"],
    [{ retries: 3 }, "options.retries"],
    [{ url: `${silentUrl}?commandTimeoutMs=soon` }, "url.commandTimeoutMs"],
    [{ url: `${silentUrl}?retries=3` }, "url.retries"],
    [{ url: "lockd://127.0.0.1" }, "url.port"],
    [{ url: `${silentUrl}/db` }, "url.path"],
    [{ url: "lockd://127.0.0.1:1,127.0.0.1:2" }, "url.host"],
    [{ url: "memory:" }, "url.scheme"],
    [{ url: undefined }, "options.url"],
  ])("the constructor refuses %o with INVALID_CONFIG naming %s, before any connection", async (options, field) => {
    const error = await configError(() => new LockdLockProvider({ url: silentUrl, ...options } as LockdLockProviderOptions));
    expect(error.field).toBe(field);
    expect(sockets).toHaveLength(0);
  });

  it("createLockProvider names a bad URL parameter url.<name> and a bad config field config.<name>, before any connection", async () => {
    registerLockBackend(lockBackend.name, createLockProviderFromConfig, { schemes: lockBackend.schemes });
    expect((await configError(() => createLockProvider(`${silentUrl}?connectTimeoutMs=-5`))).field).toBe("url.connectTimeoutMs");
    expect((await configError(() => createLockProvider({ url: silentUrl, commandTimeoutMs: "5s" }))).field).toBe("config.commandTimeoutMs");
    expect((await configError(() => createLockProvider({ backend: "lockd" }))).field).toBe("config.url");
    expect(sockets).toHaveLength(0);
  });

  it("connects on the first call, not in the constructor, and a server that never answers fails the call with BACKEND_UNAVAILABLE after commandTimeoutMs", async () => {
    const provider: LockProvider = new LockdLockProvider({ url: silentUrl, commandTimeoutMs: 200 });
    try {
      expect(sockets).toHaveLength(0);
      const started = performance.now();
      const error = await provider.inspect("k").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(LockError.is(error, LockErrorCode.BackendUnavailable)).toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      expect(sockets).toHaveLength(1);
    } finally {
      await provider.close();
    }
  });
});
