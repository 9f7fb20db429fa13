import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";

const PROBES = 5;
const PROBE_GAP_MS = 40;

/**
 * Whether a process keeps the write lock of the SQLite file at `path`: `BEGIN IMMEDIATE` with no busy timeout fails
 * at every one of `PROBES` tries, `PROBE_GAP_MS` apart. A running process holds it for the length of a statement or a
 * short transaction; only a stopped one keeps it that long.
 */
export async function sqliteWriteLockKept(path: string): Promise<boolean> {
  const db = new Database(path, { timeout: 0 });
  try {
    for (let probe = 0; probe < PROBES; probe++) {
      if (probe > 0) await sleep(PROBE_GAP_MS);
      try {
        db.exec("BEGIN IMMEDIATE");
        db.exec("ROLLBACK");
        return false;
      } catch (error) {
        if ((error as { code?: unknown }).code !== "SQLITE_BUSY") throw error;
      }
    }
    return true;
  } finally {
    db.close();
  }
}

/** Whether a process keeps the write lock of any of the SQLite files at `paths`. */
export async function anyWriteLockKept(paths: readonly string[]): Promise<boolean> {
  for (const path of paths) if (await sqliteWriteLockKept(path)) return true;
  return false;
}
