import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built `distlock` binary, run as a user would run it. */
export const DISTLOCK_BIN = fileURLToPath(new URL("../dist/bin/distlock.js", import.meta.url));

/** A running `distlock` process with its output collected. */
export interface CliRun {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code once the process ends. */
  readonly exit: Promise<number | null>;
  /** Resolves when stderr or stdout contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const child = spawn(process.execPath, [DISTLOCK_BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk;
    for (const listener of listeners) listener();
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    waitFor: (text, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!(stdout + stderr).includes(text)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for "${text}"; stdout: ${stdout}; stderr: ${stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

/** Runs `distlock` to completion. */
export async function runCli(args: string[], env?: NodeJS.ProcessEnv) {
  const run = startCli(args, env);
  const code = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** A node one-liner as a command: `node -e <script>`. */
export function nodeCommand(script: string): string[] {
  return [process.execPath, "-e", script];
}
