import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlLockProvider } from "@distlock/sql";
import Database from "better-sqlite3";
import { SqliteDialect } from "kysely";
import { kyselyWithLog } from "../../test/kysely-with-log.js";
import { describeSqlFence } from "../../test/sql-fence-suite.js";

describeSqlFence("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "distlock-fence-sqlite-"));
  const file = join(dir, "shop.sqlite");
  const { db, statements } = kyselyWithLog(new SqliteDialect({ database: new Database(file) }));
  const locks = new SqlLockProvider({ url: `sqlite:${file}` });
  const rivalLocks = new SqlLockProvider({ url: `sqlite:${file}` });
  return {
    db,
    locks,
    rivalLocks,
    statements,
    close: async () => {
      await locks.close();
      await rivalLocks.close();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
