import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";

/** Signals passed on to the child instead of ending `distlock` itself. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];

/** Grace period between SIGTERM and SIGKILL when the lock is lost. */
export const DEFAULT_KILL_AFTER_MS = 5_000;

/** Runs one program with inherited stdio, forwarding signals to it while it lives. */
export class ChildSupervisor {
  /** Resolves with the child's exit code; a signal death maps to 128 + signal number, like a shell. */
  readonly exited: Promise<number>;
  readonly #child: ChildProcess;
  readonly #forward = (signal: NodeJS.Signals) => this.#child.kill(signal);
  #killTimer: NodeJS.Timeout | undefined;

  constructor(program: readonly string[], env: NodeJS.ProcessEnv) {
    const [command, ...args] = program as [string, ...string[]];
    this.#child = spawn(command, args, { stdio: "inherit", env });
    for (const signal of FORWARDED_SIGNALS) process.on(signal, this.#forward);
    this.exited = new Promise((resolve) => {
      const finish = (code: number) => {
        clearTimeout(this.#killTimer);
        for (const signal of FORWARDED_SIGNALS) process.off(signal, this.#forward);
        resolve(code);
      };
      this.#child.once("error", (error) => {
        process.stderr.write(`distlock: could not start ${command}: ${error.message}\n`);
        finish(127);
      });
      this.#child.once("exit", (code, signal) => finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
    });
  }

  /** SIGTERM now, SIGKILL after `graceMs` if it is still running. */
  terminate(graceMs = DEFAULT_KILL_AFTER_MS): void {
    this.#child.kill("SIGTERM");
    this.#killTimer = setTimeout(() => this.#child.kill("SIGKILL"), graceMs);
    this.#killTimer.unref();
  }
}
