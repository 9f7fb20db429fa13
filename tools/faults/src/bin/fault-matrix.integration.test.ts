import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../../dist/bin/fault-matrix.js", import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  if (!existsSync(CLI)) throw new Error(`fault matrix CLI not built: run "npx tsc -p tools/faults/tsconfig.build.json" (looked for ${CLI})`);
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The cells of the table line of `backend / fault`. */
function cellsOf(table: string, backend: string, fault: string): string[] | undefined {
  return table
    .split("\n")
    .map((line) => line.split("|").map((cell) => cell.trim()))
    .find((cells) => cells[1] === backend && cells[2] === fault)
    ?.slice(1, -1);
}

describe("fault matrix CLI", () => {
  it("reports a row whose servers cannot start as a failed row with the reason, runs the other rows, and exits 1", async () => {
    // A real etcd that refuses to start: it exits when an ETCD_* variable names a setting its command line also sets.
    const env = { ...process.env, ETCD_NAME: "set-by-the-environment" };
    const run = await runCli(["--backend", "etcd", "--backend", "sqlite", "--fault", "holder-sigkill", "--primitive", "lock"], env);

    expect(run.code, run.stderr).toBe(1);
    expect(cellsOf(run.stdout, "etcd", "holder-sigkill")).toEqual([
      "etcd",
      "holder-sigkill",
      "—",
      "—",
      "—",
      "—",
      "—",
      "—",
      "**failed**",
      "—",
      expect.any(String),
    ]);
    expect(run.stdout).toMatch(/^- etcd \/ holder-sigkill: \*\*row failed\*\*: its servers did not start: .*conflicting environment variable "ETCD_NAME"/m);
    // The row after it ran on its own and passed.
    const sqlite = cellsOf(run.stdout, "sqlite", "holder-sigkill");
    expect(sqlite?.[8], run.stdout).toBe("0");
    expect(Number(sqlite?.[3])).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/^etcd \/ holder-sigkill: row failed: /m);
    expect(run.stderr).toMatch(/^sqlite \/ holder-sigkill: \d+ ops, 0 violations/m);
  });
});
