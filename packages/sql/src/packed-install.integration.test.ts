// What a user gets from npm: the packed @distlock/core and @distlock/sql tarballs installed in a fresh project outside
// the workspace, with only `pg` added from the registry, lock on a real PostgreSQL through createLockProvider().
// Packs dist/, so build first (`npm test` does).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startPostgres } from "@distlock/test-servers";
import { afterAll, expect, test } from "vitest";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const sqlManifest = JSON.parse(readFileSync(join(repoRoot, "packages/sql/package.json"), "utf8")) as { peerDependencies: Record<string, string> };
// The child npm and node must not inherit the settings `npm test` exports for the workspace (npm_config_*, npm_package_*),
// nor a DISTLOCK_* setting another file of this worker left: the app is a user's, with only core, sql and pg installed.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|distlock_)/i.test(name)));

const server = await startPostgres();
const dir = mkdtempSync(join(tmpdir(), "distlock-packed-install-"));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

const LOCK_SCRIPT = `
import { createLockProvider } from "@distlock/core";

const locks = await createLockProvider(process.argv[2]);
const first = await locks.acquire("packed-install", { ttlMs: 10_000, waitMs: 5_000 });
const token = first.fencingToken;
await first.release();
const second = await locks.acquire("packed-install", { ttlMs: 10_000, waitMs: 5_000 });
const nextToken = second.fencingToken;
await second.release();
const state = await locks.inspect("packed-install");
await locks.close();
console.log(JSON.stringify({ token: typeof token === "bigint" ? token.toString() : token, nextToken: String(nextToken), heldAfterRelease: state !== null }));
`;

test("the packed core and sql tarballs, installed with only pg, lock on PostgreSQL", { timeout: 300_000 }, async () => {
  const pack = await run("npm", ["pack", "--json", "--pack-destination", dir, "--workspace", "packages/core", "--workspace", "packages/sql"], {
    cwd: repoRoot,
    env,
  });
  const tarballs = (JSON.parse(pack.stdout) as Array<{ filename: string }>).map(({ filename }) => join(dir, filename));
  expect(tarballs).toHaveLength(2);

  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "packed-install-check", private: true, type: "module" }));
  await run("npm", ["install", "--no-audit", "--no-fund", ...tarballs, `pg@${sqlManifest.peerDependencies.pg}`], { cwd: app, env });

  const installed = (name: string) => existsSync(join(app, "node_modules", name, "package.json"));
  expect(installed("@distlock/core")).toBe(true);
  expect(installed("@distlock/sql")).toBe(true);
  expect(installed("pg")).toBe(true);
  // the clients of the other dialects are optional peers: a PostgreSQL user does not get them
  expect(installed("better-sqlite3")).toBe(false);
  expect(installed("mysql2")).toBe(false);
  // @distlock/sql uses the installed core, not a second copy
  expect(existsSync(join(app, "node_modules", "@distlock", "sql", "node_modules", "@distlock", "core"))).toBe(false);

  writeFileSync(join(app, "lock.mjs"), LOCK_SCRIPT);
  const { stdout } = await run(process.execPath, ["lock.mjs", server.url], { cwd: app, env });
  const result = JSON.parse(stdout) as { token: string; nextToken: string; heldAfterRelease: boolean };
  expect(BigInt(result.token)).toBeGreaterThan(0n);
  expect(BigInt(result.nextToken)).toBeGreaterThan(BigInt(result.token));
  expect(result.heldAfterRelease).toBe(false);
});
