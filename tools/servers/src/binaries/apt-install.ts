import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestServerError } from "../errors/test-server-error.js";
import { isProcessGone } from "../process/process-tree.js";
import { runCommand } from "../process/run-command.js";

const LOCK_FILE = join(tmpdir(), "distlock-test-servers-apt.lock");
const LOCK_WAIT_MS = 20 * 60_000;
const APT_TIMEOUT_MS = 20 * 60_000;
let updated = false;

/** The command a person runs to install `packages` themselves. */
export function aptInstallCommand(packages: readonly string[], sudo: boolean): string {
  const prefix = sudo ? "sudo " : "";
  return `${prefix}apt-get update && ${prefix}DEBIAN_FRONTEND=noninteractive ` + `apt-get install -y ${packages.join(" ")}`;
}

/** Takes a lock file shared by every test worker on the machine; resolves with its release function. */
async function acquireLock(): Promise<() => void> {
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      writeFileSync(LOCK_FILE, String(process.pid), { flag: "wx" });
      return () => rmSync(LOCK_FILE, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(LOCK_FILE, "utf8"));
    } catch {
      continue; // Released between our two calls.
    }
    if (Number.isInteger(holder) && holder > 0 && isProcessGone(holder)) {
      rmSync(LOCK_FILE, { force: true });
      continue;
    }
    if (performance.now() >= deadline) {
      throw new TestServerError(`Timed out waiting for ${LOCK_FILE} (held by pid ${holder}); delete it if stale.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Installs Debian packages with apt-get, one installer at a time machine-wide.
 * `stillMissing` is asked again once the lock is held: another worker may have installed them.
 */
export async function installDebianPackages(packages: readonly string[], stillMissing: () => boolean): Promise<void> {
  const release = await acquireLock();
  try {
    if (!stillMissing()) return;
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    if (!updated) {
      await runCommand("apt-get", ["update"], { env, timeoutMs: APT_TIMEOUT_MS });
      updated = true;
    }
    await runCommand("apt-get", ["install", "-y", ...packages], { env, timeoutMs: APT_TIMEOUT_MS });
  } finally {
    release();
  }
}
