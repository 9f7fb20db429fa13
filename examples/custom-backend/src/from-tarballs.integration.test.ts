import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The plug as a user gets it: @distlock/core, @distlock/conformance, the CLI and this example are packed with `npm pack`,
 * installed from the tarballs in a project outside the workspace, and the conformance suite runs there on lockd.
 * Build first (`npm test` does): the tarballs hold dist/.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL("../../..", import.meta.url));
const example = fileURLToPath(new URL("..", import.meta.url));
const PACKED = [
  "packages/core",
  "packages/conformance",
  "packages/cli",
  "packages/sql",
  "packages/redis",
  "packages/redlock",
  "packages/etcd",
  "packages/fence",
  "examples/custom-backend",
];

/** The environment of a process in the installed project: nothing of this vitest run or of this workspace leaks in. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(VITEST|DISTLOCK_)|^NODE_OPTIONS$|^TEST$/.test(name)) delete env[name];
  return env;
}

interface AssertionResult {
  ancestorTitles: string[];
  title: string;
  status: "passed" | "failed" | "skipped" | "pending" | "todo";
}

let project: string;
let temp: string;

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), "distlock-installed-"));
  project = join(temp, "project");
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", temp, ...PACKED.flatMap((dir) => ["--workspace", dir])], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const tarballs = (JSON.parse(stdout) as { name: string; filename: string }[]).map(({ name, filename }) => [name, `file:../${filename}`]);
  const vitest = (JSON.parse(readFileSync(join(root, "node_modules/vitest/package.json"), "utf8")) as { version: string }).version;
  await run("mkdir", ["-p", project]);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "installed-backend-check", private: true, type: "module", dependencies: { ...Object.fromEntries(tarballs), vitest } }, null, 2),
  );
  // No install script is needed here (better-sqlite3's native build serves only sqlite:, which nothing here uses), and
  // npm's script allow-list phase alone costs about two minutes of CPU on this machine.
  await run("npm", ["install", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: project, env: cleanEnv() });
  copyFileSync(join(example, "src/lockd.conformance.test.ts"), join(project, "lockd.conformance.test.ts"));
  copyFileSync(join(example, "test-support/check-installed.mjs"), join(project, "check-installed.mjs"));
}, 600_000);

afterAll(() => {
  if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
});

describe("the example backend installed from packed tarballs, outside the workspace", () => {
  it("passes the whole conformance suite there, its cross-process and config areas included", { timeout: 600_000 }, async () => {
    const report = join(project, "report.json");
    await run(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--reporter=json", `--outputFile=${report}`], {
      cwd: project,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the installed suite failed:\n${error.stderr ?? ""}\n${(error.stdout ?? "").slice(-4000)}`);
    });
    const results = (JSON.parse(readFileSync(report, "utf8")) as { testResults: { assertionResults: AssertionResult[] }[] }).testResults.flatMap(
      (file) => file.assertionResults,
    );
    const count = (tests: AssertionResult[], status: string) => tests.filter((test) => test.status === status).length;
    const byArea = new Map<string, AssertionResult[]>();
    for (const test of results) {
      const area = test.ancestorTitles[1] ?? test.ancestorTitles[0] ?? "(top)";
      byArea.set(area, [...(byArea.get(area) ?? []), test]);
    }
    const crossProcess = results.filter((test) => /process/i.test(test.title));
    const config = byArea.get("config") ?? [];
    console.log(
      [
        `installed conformance: ${count(results, "passed")} passed, ${count(results, "failed")} failed, ${count(results, "skipped") + count(results, "pending")} skipped`,
        ...[...byArea].map(([area, tests]) => `  ${area}: ${count(tests, "passed")} passed, ${count(tests, "skipped") + count(tests, "pending")} skipped`),
        `  cross-process tests (OS worker processes): ${count(crossProcess, "passed")} passed of ${crossProcess.length}`,
        `  config area: ${count(config, "passed")} passed of ${config.length}`,
      ].join("\n"),
    );
    expect(count(results, "failed")).toBe(0);
    expect(count(results, "passed")).toBeGreaterThan(100);
    expect(crossProcess.length).toBeGreaterThanOrEqual(10);
    expect(count(crossProcess, "passed")).toBe(crossProcess.length);
    expect(config.length).toBeGreaterThanOrEqual(10);
    expect(count(config, "passed")).toBe(config.length);
  });

  it("reaches lockd:// through createLockProvider and through the distlock command", { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, ["check-installed.mjs"], { cwd: project, env: cleanEnv() }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`check-installed.mjs failed:\n${error.stderr ?? ""}\n${error.stdout ?? ""}`);
      },
    );
    const seen = JSON.parse(stdout.trim().split("\n").at(-1) as string);
    expect(seen.refusedBeforeRegistration).toEqual({ code: "INVALID_CONFIG", field: "url.scheme" });
    expect(seen.inCode).toMatchObject({ backend: "lockd", fencingToken: expect.stringMatching(/^\d+$/) });
    expect(seen.cliRun).toMatchObject({ status: 0, stdout: expect.stringMatching(/token=\d+/) });
    expect(seen.cliStatus.status).toBe(0);
    expect(JSON.parse(seen.cliStatus.stdout)).toMatchObject({ backend: "lockd", locks: [{ key: "installed:cli", held: false }] });
    expect(seen.cliWithoutModule.status).not.toBe(0);
    expect(seen.cliWithoutModule.stderr).toContain("url.scheme");
  });
});
