import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteWriteLockKept } from "./sqlite-write-lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function walFile(): { path: string; db: Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), "distlock-write-lock-"));
  dirs.push(dir);
  const path = join(dir, "locks.sqlite");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (x INTEGER)");
  return { path, db };
}

describe("sqliteWriteLockKept", () => {
  it("is false while nobody writes", async () => {
    const { path, db } = walFile();
    expect(await sqliteWriteLockKept(path)).toBe(false);
    db.close();
  });

  it("is true while another connection keeps a write transaction open, and false once it commits", async () => {
    const { path, db } = walFile();
    db.exec("BEGIN IMMEDIATE");
    db.exec("INSERT INTO t VALUES (1)");
    expect(await sqliteWriteLockKept(path)).toBe(true);
    db.exec("COMMIT");
    expect(await sqliteWriteLockKept(path)).toBe(false);
    db.close();
  });
});
