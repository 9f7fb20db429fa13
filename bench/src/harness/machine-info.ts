import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureServerBinaries } from "@distlock/test-servers";

/** What a run ran on, for the report. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  /** 1, 5 and 15 minute load averages when the run started. */
  readonly loadAtStart: readonly number[];
  /** First line of each server binary's `--version`. */
  readonly servers: Readonly<Record<string, string>>;
  /** Installed versions of the client and peer libraries. */
  readonly libraries: Readonly<Record<string, string>>;
}

const SERVER_BINARIES = ["redis-server", "etcd", "postgres", "nats-server"];
const LIBRARIES = ["ioredis", "@sesamecare-oss/redlock", "redis-semaphore", "redlock-universal", "etcd3", "pg", "better-sqlite3", "kysely", "@nats-io/kv"];
const VERSION_TIMEOUT_MS = 10_000;

/** Reads the machine, the server binaries the bench starts and the library versions. */
export async function collectMachineInfo(): Promise<MachineInfo> {
  const loadAtStart = loadavg();
  const binaries = await ensureServerBinaries(["redis", "etcd", "postgres", "nats"]);
  const servers: Record<string, string> = {};
  for (const name of SERVER_BINARIES) {
    const path = binaries.get(name);
    if (path === undefined) continue;
    const output = execFileSync(path, ["--version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS });
    servers[name] = output.split("\n")[0]?.trim() ?? "";
  }
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memoryGiB: totalmem() / 2 ** 30,
    kernel: `Linux ${release()}`,
    node: process.version,
    loadAtStart,
    servers,
    libraries: Object.fromEntries(LIBRARIES.map((name) => [name, installedVersion(name)])),
  };
}

/** The version in the nearest `node_modules/<name>/package.json` above this file. */
function installedVersion(name: string): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "node_modules", name, "package.json");
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
  }
  return "not found";
}
