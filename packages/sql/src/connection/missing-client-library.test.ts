import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LockErrorCode } from "@distlock/core";
import { afterAll, describe, expect, it } from "vitest";

/** Loads @distlock/sql from dist/ (build first) with the given packages unresolvable. */
const WORKER = fileURLToPath(new URL("../../test/missing-client-worker.mjs", import.meta.url));

interface Outcome {
  granted?: boolean;
  code?: string;
  field?: string;
  message?: string;
  cause?: string;
}

interface Report {
  url: string;
  /** `new SqlLockProvider({ url })`, then `acquire()`. */
  constructed: Outcome;
  /** `createLockProvider(url)`, then `acquire()`. */
  created: Outcome;
}

const dir = mkdtempSync(join(tmpdir(), "distlock-missing-client-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the worker; a non-zero exit (an unhandled rejection ends it with 1) or a hang past the timeout fails the test. */
function runWithout(hidden: readonly string[], urls: readonly string[]): Promise<Report[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WORKER, hidden.join(","), ...urls], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the worker failed: ${stderr}`, { cause: error }));
      else resolve((JSON.parse(stdout) as { reports: Report[] }).reports);
    });
  });
}

describe("a SQL client library that is not installed", () => {
  it("fails the first operation and createLockProvider with INVALID_CONFIG naming the package to install, before contacting anything", async () => {
    const sqliteFile = join(dir, "never-created.sqlite");
    const cases = [
      { url: "postgres://app:s3cret@127.0.0.1:1/db", packageName: "pg", scheme: "postgres:" },
      { url: "mariadb://app:s3cret@127.0.0.1:1/db", packageName: "mysql2", scheme: "mariadb:" },
      { url: `sqlite:${sqliteFile}`, packageName: "better-sqlite3", scheme: "sqlite:" },
    ];

    const reports = await runWithout(
      cases.map((c) => c.packageName),
      cases.map((c) => c.url),
    );

    for (const [index, { packageName, scheme }] of cases.entries()) {
      const { constructed, created } = reports[index] as Report;
      // Port 1 refuses connections: had anything been contacted, this would be BACKEND_UNAVAILABLE.
      expect(constructed).toMatchObject({ code: LockErrorCode.InvalidConfig, field: "options.url", cause: "ERR_MODULE_NOT_FOUND" });
      expect(created).toMatchObject({ code: LockErrorCode.InvalidConfig, field: "config.url", cause: "ERR_MODULE_NOT_FOUND" });
      for (const { message } of [constructed, created]) {
        expect(message).toContain(`${scheme} URLs need the ${packageName} package`);
        expect(message).toContain(`npm install ${packageName}`);
        expect(message).not.toContain("s3cret");
      }
    }
    expect(existsSync(sqliteFile)).toBe(false);
  });

  it("leaves the other dialects alone: SQLite locks with pg and mysql2 not installed", async () => {
    const [report] = await runWithout(["pg", "mysql2"], [`sqlite:${join(dir, "only-sqlite.sqlite")}`]);
    expect(report).toMatchObject({ constructed: { granted: true }, created: { granted: true } });
  });
});
