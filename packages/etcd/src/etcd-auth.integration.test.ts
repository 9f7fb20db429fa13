import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { startEtcd } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { urlProviders } from "../test/url-providers.js";

const server = await startEtcd();
afterAll(() => server.close());

function etcdctl(...args: string[]): void {
  execFileSync("etcdctl", [`--endpoints=${server.endpoint}`, ...args], { stdio: "ignore", timeout: 10_000 });
}

etcdctl("user", "add", "root", "--new-user-password=root-pw");
etcdctl("role", "add", "root");
etcdctl("user", "grant-role", "root", "root");
etcdctl("role", "add", "locker");
etcdctl("role", "grant-permission", "locker", "--prefix=true", "readwrite", "distlock/");
etcdctl("user", "add", "app", "--new-user-password=app-pw");
etcdctl("user", "grant-role", "app", "locker");
etcdctl("user", "add", "outsider", "--new-user-password=outsider-pw");
etcdctl("auth", "enable");

const hostPort = `127.0.0.1:${server.port}`;

describe("etcd with authentication enabled", () => {
  const { provider, unavailable } = urlProviders();
  const failure = (url: string) => unavailable(url, `auth-${randomUUID()}`);

  it("a user with readwrite on the prefix (credentials from the URL) locks, queues and hands over", async () => {
    const key = `auth-${randomUUID()}`;
    const holder = await provider(`etcd://app:app-pw@${hostPort}`).acquire(key);
    const waiting = provider(`etcd://app:app-pw@${hostPort}`).acquire(key, { waitMs: 10_000 });
    await holder.release();
    const next = await waiting;
    expect(next.fencingToken).toBeGreaterThan(holder.fencingToken as bigint);
    await next.release();
  });

  it("a wrong password fails with BACKEND_UNAVAILABLE saying so, without echoing it", async () => {
    const error = await failure(`etcd://app:not-the-password@${hostPort}`);
    expect(error.message).toContain("username or password");
    expect(error.message).not.toContain("not-the-password");
  });

  it("a user without permission on the prefix fails with BACKEND_UNAVAILABLE naming the missing permission", async () => {
    const error = await failure(`etcd://outsider:outsider-pw@${hostPort}`);
    expect(error.message).toContain("permission");
  });
});
