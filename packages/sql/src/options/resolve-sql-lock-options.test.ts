import { createLockProvider, LockError, LockErrorCode } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { SqlLockProvider } from "../sql-lock-provider.js";

function configError(build: () => unknown): { field?: string; message: string } {
  try {
    build();
  } catch (error) {
    expect(LockError.is(error, LockErrorCode.InvalidConfig), String(error)).toBe(true);
    return error as { field?: string; message: string };
  }
  throw new Error("expected an InvalidConfigError");
}

const INJECTIONS = ["locks; DROP TABLE users", 'locks" --', "locks`", "public.locks", "locks name", "1locks", "", "l".repeat(49), "locks\u0000"];

describe("SqlLockProvider options", () => {
  it.each(INJECTIONS)("rejects the table name %j before touching any database", (table) => {
    const error = configError(() => new SqlLockProvider({ url: "postgres://app:pw@127.0.0.1:1/db", table }));
    expect(error.field).toBe("options.table");
  });

  it("rejects an injected table name given as a URL parameter, naming the parameter", () => {
    const error = configError(() => new SqlLockProvider({ url: `sqlite:/tmp/x.sqlite?table=${encodeURIComponent("t; DROP TABLE t")}` }));
    expect(error.field).toBe("url.table");
  });

  it.each([
    ["no host", "postgres://", "url.host"],
    ["a port out of range", "postgres://127.0.0.1:99999/db", "url.port"],
    ["a broken %-escape", "mysql://user:%zz@127.0.0.1/db", "url.password"],
    ["an empty sqlite path", "sqlite:", "url.path"],
    ["an unknown parameter", "mysql://127.0.0.1/db?tabel=locks", "url.tabel"],
    ["a non-numeric pool size", "postgres://127.0.0.1/db?poolSize=many", "url.poolSize"],
    ["a non-boolean listen flag", "postgres://127.0.0.1/db?listen=maybe", "url.listen"],
    ["a non-SQL scheme", "redis://127.0.0.1:6379", "url.scheme"],
    ["no scheme", "just a string", "url"],
  ])("rejects a URL with %s", (_, url, field) => {
    const error = configError(() => new SqlLockProvider({ url }));
    expect(error.field).toBe(field);
  });

  it("never echoes the password of a malformed URL", () => {
    const error = configError(() => new SqlLockProvider({ url: "postgres://app:s3cret-pw@127.0.0.1:70000/db" }));
    expect(error.message).not.toContain("s3cret-pw");
  });

  it.each([
    ["no source", {}, "options"],
    ["two sources", { url: "sqlite:/tmp/a.sqlite", sqliteDatabase: {} }, "options"],
    ["kysely without a dialect", { kysely: {} }, "options.dialect"],
    ["an unknown dialect", { kysely: {}, dialect: "oracle" }, "options.dialect"],
    ["a dialect contradicting the URL", { url: "sqlite:/tmp/a.sqlite", dialect: "postgres" }, "options.dialect"],
    ["an unknown option", { url: "sqlite:/tmp/a.sqlite", tabel: "x" }, "options.tabel"],
    ["a zero query timeout", { url: "sqlite:/tmp/a.sqlite", queryTimeoutMs: 0 }, "options.queryTimeoutMs"],
    ["a fractional pool size", { url: "sqlite:/tmp/a.sqlite", poolSize: 1.5 }, "options.poolSize"],
  ])("rejects options with %s", (_, options, field) => {
    const error = configError(() => new SqlLockProvider(options as never));
    expect(error.field).toBe(field);
  });

  it("createLockProvider names config fields for options given next to the URL", async () => {
    const error = await createLockProvider({ url: "sqlite:/tmp/a.sqlite", table: "bad name" }).then(
      () => undefined,
      (e: { field?: string }) => e,
    );
    expect(LockError.is(error, LockErrorCode.InvalidConfig)).toBe(true);
    expect(error?.field).toBe("config.table");
  });

  it("createLockProvider builds an SQL provider per scheme without connecting", async () => {
    for (const [url, backend] of [
      ["postgresql://app@127.0.0.1:1/db", "postgres"],
      ["mariadb://app@127.0.0.1:1/db", "mysql"],
      ["sqlite:/tmp/never-opened.sqlite", "sqlite"],
    ]) {
      const provider = await createLockProvider(url);
      expect(provider.backend).toBe(backend);
      expect(provider.capabilities).toMatchObject({ fencing: true, fifo: true, serverClock: true });
      await provider.close();
    }
  });
});
