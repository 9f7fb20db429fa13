import { spawn } from "node:child_process";
import { TestServerError } from "../errors/test-server-error.js";
import { guardedCommand } from "./guarded-command.js";
import type { OsUser } from "./os-user.js";
import { signalProcessTree } from "./process-tree.js";

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** Hard limit; the command is SIGKILLed when it is exceeded. */
  readonly timeoutMs: number;
  /** Working directory. @default process.cwd() */
  readonly cwd?: string;
  /** Environment. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** OS user to run as (only meaningful when this process is root). */
  readonly user?: OsUser;
}

const MAX_OUTPUT = 64 * 1024;
const ERROR_OUTPUT = 4 * 1024;

/** Runs a command to completion and resolves with its combined stdout and stderr. */
export function runCommand(command: string, args: readonly string[], options: RunCommandOptions): Promise<string> {
  const line = guardedCommand(command, args, options.user);
  const shown = [command, ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(line.command, line.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    const collect = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (output.length > MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) signalProcessTree(child.pid, "SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new TestServerError(`Could not run \`${shown}\`: ${error.message}`, { cause: error }));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve(output);
        return;
      }
      const why = timedOut ? `timed out after ${options.timeoutMs} ms` : `exited with ${code ?? signal}`;
      reject(new TestServerError(`\`${shown}\` ${why}:\n${output.slice(-ERROR_OUTPUT)}`));
    });
  });
}
