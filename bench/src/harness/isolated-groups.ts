import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GroupResult } from "./run-scenario-groups.js";

/** Non-finite numbers (a metric nobody measured is NaN) survive the trip through JSON under this key. */
const NON_FINITE = "$nonFinite";

const encode = (_key: string, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? { [NON_FINITE]: String(value) } : value);
const decode = (_key: string, value: unknown) =>
  typeof value === "object" && value !== null && NON_FINITE in value ? Number((value as Record<string, string>)[NON_FINITE]) : value;

/** Writes a child's group results where its parent reads them. */
export function writeGroupResults(path: string, results: readonly GroupResult[]): void {
  writeFileSync(path, JSON.stringify(results, encode));
}

/**
 * Runs each named group in a fresh Node process (this script again, with `--result-file`) one after another, its
 * tables printed as it goes. A group never runs on the heap, timers, sockets or JIT state an earlier group left
 * behind: a subject that allocates paid for the old generation earlier groups had grown (OpenTelemetry's p50 ratio
 * was 1.04× with its group alone and 1.09× at the end of a full run in one process).
 */
export async function runGroupsIsolated(script: string, names: readonly string[]): Promise<GroupResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "distlock-bench-"));
  try {
    const results: GroupResult[] = [];
    for (const name of names) {
      const resultFile = join(dir, `${name}.json`);
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [...process.execArgv, script, name, "--result-file", resultFile], { stdio: "inherit" });
        child.once("error", reject);
        child.once("exit", resolve);
      });
      if (code !== 0) throw new Error(`bench group ${name} exited with code ${code}`);
      results.push(...(JSON.parse(readFileSync(resultFile, "utf8"), decode) as GroupResult[]));
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
