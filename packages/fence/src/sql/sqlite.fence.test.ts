import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteDialect } from "kysely";
import { describeSqlFence } from "../../test/sql-fence-suite.js";

describeSqlFence("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "distlock-fence-sqlite-"));
  const file = join(dir, "shop.sqlite");
  return {
    dialect: new SqliteDialect({ database: new Database(file) }),
    lockUrl: `sqlite:${file}`,
    stop: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
