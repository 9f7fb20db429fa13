import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** How long the other process may take to start, load its backend and try the key. */
const PROBE_TIMEOUT_MS = 20_000;

/** Run by `node --input-type=module -e`: one tryAcquire of the key from a fresh process, through the public API. */
const PROBE_SCRIPT = `
const { createLockProvider } = await import(process.env.DISTLOCK_DOCTOR_CORE);
const provider = await createLockProvider(process.env.DISTLOCK_DOCTOR_URL);
try {
  const lock = await provider.tryAcquire(process.env.DISTLOCK_DOCTOR_KEY);
  process.stdout.write(lock === null ? "excluded" : "took");
  if (lock !== null) await lock.release();
} finally {
  await provider.close();
}`;

/**
 * Whether another process on this machine, with a provider of its own on `url`, is kept out of `key` (which the
 * caller holds): "excluded" or "took"; rejects with what the process printed when it failed.
 */
export function tryKeyFromOtherProcess(url: string | undefined, key: string): Promise<"excluded" | "took"> {
  const core = pathToFileURL(createRequire(import.meta.url).resolve("@distlock/core")).href;
  const child = spawn(process.execPath, ["--input-type=module", "-e", PROBE_SCRIPT], {
    env: { ...process.env, DISTLOCK_DOCTOR_CORE: core, DISTLOCK_DOCTOR_KEY: key, ...(url === undefined ? {} : { DISTLOCK_DOCTOR_URL: url }) },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: PROBE_TIMEOUT_MS,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0 && (stdout === "excluded" || stdout === "took")) resolve(stdout);
      else reject(new Error(`the other process ended with ${code ?? "a signal"}: ${stderr.trim().split("\n").at(-1) ?? ""}`));
    });
  });
}
