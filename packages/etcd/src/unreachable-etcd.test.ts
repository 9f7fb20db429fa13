import { createServer } from "node:net";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { EtcdLockProvider } from "./etcd-lock-provider.js";

/** A 127.0.0.1 port nobody listens on (bound and released again by this process). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("an unreachable etcd", () => {
  it("fails acquire with BACKEND_UNAVAILABLE naming the endpoint, within the request timeout, without the password", async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const provider = new EtcdLockProvider({ hosts: [endpoint], auth: { username: "app", password: "hunter2" }, requestTimeoutMs: 300, dialTimeoutMs: 300 });
    const started = monotonicNow();
    const error = await provider.acquire("k", { waitMs: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect((error as Error).message).toContain(endpoint);
    expect((error as Error).message).not.toContain("hunter2");
    expect(monotonicNow() - started).toBeLessThan(5_000);
    await provider.close();
  });
});
