import { LockError, LockErrorCode } from "@distlock/core";
import BetterSqlite3 from "better-sqlite3";
import mysql2 from "mysql2";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { rejectionOf } from "../../test/settle.js";
import type { Mysql2Module } from "../mysql/mysql-client-api.js";
import type { PgModule } from "../postgres/postgres-client-api.js";
import type { BetterSqlite3Module } from "../sqlite/sqlite-client-api.js";
import { loadClientLibrary } from "./load-client-library.js";

const request = { field: "options.url", neededBy: "test: URLs" };

describe("loadClientLibrary", () => {
  it("resolves with the default export of an installed library, which satisfies the slice this package declares of it", async () => {
    // The assignments are the check (by npm run typecheck): the installed pg, mysql2 and better-sqlite3 fit the slices.
    const installed: [PgModule, Mysql2Module, BetterSqlite3Module] = [pg, mysql2, BetterSqlite3];
    const loaded = await Promise.all([
      loadClientLibrary<PgModule>("pg", request),
      loadClientLibrary<Mysql2Module>("mysql2", request),
      loadClientLibrary<BetterSqlite3Module>("better-sqlite3", request),
    ]);
    for (const [index, library] of loaded.entries()) expect(library).toBe(installed[index]);
  });

  it("rejects a package that is not installed with INVALID_CONFIG on the field, saying what to install", async () => {
    const error = await rejectionOf(loadClientLibrary("@distlock/no-such-client", request));
    expect(LockError.is(error, LockErrorCode.InvalidConfig), String(error)).toBe(true);
    expect(error).toMatchObject({ field: "options.url", cause: { code: "ERR_MODULE_NOT_FOUND" } });
    expect((error as Error).message).toContain(
      "test: URLs need the @distlock/no-such-client package, which is not installed; run npm install @distlock/no-such-client",
    );
  });
});
