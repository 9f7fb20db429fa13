import { describe, expect, it } from "vitest";
import { LockError } from "../errors/lock-error.js";
import { parseLockUrl } from "./lock-url.js";

function configError(url: unknown) {
  try {
    parseLockUrl(url);
  } catch (error) {
    if (LockError.is(error, "INVALID_CONFIG")) return error as LockError & { field: string };
    throw error;
  }
  throw new Error(`expected ${String(url)} to be rejected`);
}

describe("parseLockUrl", () => {
  it.each([
    ["memory:", "memory", undefined, ""],
    ["memory:shared", "memory", undefined, "shared"],
    ["sqlite:./locks.sqlite", "sqlite", undefined, "./locks.sqlite"],
    ["sqlite:///tmp/locks.sqlite", "sqlite", undefined, "/tmp/locks.sqlite"],
    ["postgres://app@db:5432/locks", "postgres", undefined, "locks"],
    ["postgresql://db/locks", "postgres", undefined, "locks"],
    ["mysql://root@127.0.0.1:3306/test", "mysql", undefined, "test"],
    ["mariadb://127.0.0.1/test", "mysql", undefined, "test"],
    ["redis://127.0.0.1:6379", "redis", undefined, ""],
    ["rediss://cache:6380/2", "redis", "tls", "2"],
    ["redis+sentinel://s1:26379,s2:26379/mymaster", "redis", "sentinel", "mymaster"],
    ["redis+cluster://n1:7000,n2:7001,n3:7002", "redis", "cluster", ""],
    ["redlock://h1:6379,h2:6380,h3:6381", "redlock", undefined, ""],
    ["etcd://e1:2379,e2:2379", "etcd", undefined, ""],
    ["etcds://e1:2379", "etcd", "tls", ""],
  ])("reads %s as backend %s", (url, backend, variant, path) => {
    expect(parseLockUrl(url)).toMatchObject({ backend, variant, path });
  });

  it("keeps every host of a multi-host URL with its port", () => {
    expect(parseLockUrl("redlock://a:1,b,[::1]:3").hosts).toEqual([
      { host: "a", port: 1 },
      { host: "b", port: undefined },
      { host: "::1", port: 3 },
    ]);
  });

  it("decodes credentials and query parameters but masks the password in the redacted form", () => {
    const url = parseLockUrl("postgres://app%40x:p%40ss@db:5432/locks?sslmode=require");
    expect([url.username, url.password, url.params.get("sslmode")]).toEqual(["app@x", "p@ss", "require"]);
    expect(url.redacted).toBe("postgres://app%40x:***@db:5432/locks?sslmode=require");
  });

  it.each([
    [42, "url"],
    ["", "url"],
    ["not a url", "url"],
    ["ftp://host", "url.scheme"],
    ["redis://", "url.host"],
    ["redis://a:1,b:2", "url.host"],
    ["redis://host:0", "url.port"],
    ["redis://host:70000", "url.port"],
    ["redis://host:abc", "url.port"],
    ["etcd://a:1,,b:2", "url.host"],
    ["postgres://u:%zz@h/db", "url.password"],
  ])("rejects %s naming %s", (url, field) => {
    expect(configError(url).field).toBe(field);
  });

  it("never echoes a password in an error message", () => {
    const error = configError("ftp://user:hunter2@host");
    expect(error.message).not.toContain("hunter2");
    expect(configError("redis://user:hunter2@host:99999").message).not.toContain("hunter2");
  });
});
