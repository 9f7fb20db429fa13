import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { machineNow } from "../history/history-event.js";
import type { ParentMessage, WorkerMessage, WorkerTask } from "../worker/worker-protocol.js";
import type { HistoryLog } from "./history-log.js";

const STOP_GRACE_MS = 5_000;

/** The compiled worker; tests running from source spawn the built file too (build the package first). */
export function workerScriptPath(): string {
  const path = fileURLToPath(new URL("../../dist/worker/fault-worker.js", import.meta.url));
  if (!existsSync(path)) throw new Error(`fault worker not built: run "npx tsc -p tools/faults/tsconfig.build.json" (looked for ${path})`);
  return path;
}

/** One fault worker process, its history going to a shared log. */
export class WorkerProcess {
  readonly task: WorkerTask;
  readonly #child: ChildProcess;
  readonly #log: HistoryLog;
  readonly #ready: Promise<void>;
  readonly #exited: Promise<void>;
  #failure: string | undefined;
  #killed = false;
  #paused = false;
  #stopping = false;

  constructor(task: WorkerTask, log: HistoryLog) {
    this.task = Object.freeze({ ...task });
    this.#log = log;
    this.#child = fork(workerScriptPath(), [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.#exited = once(this.#child, "exit").then(([code, signal]) => {
      if (this.#killed || this.#stopping) return;
      // A crash we did not inject: the worker is gone, and the row reports why.
      this.#failure ??= `exited unexpectedly (code ${code}, signal ${signal})`;
      log.add({ type: "killed", worker: this.name, at: machineNow() });
    });
    this.#ready = new Promise((resolve, reject) => {
      this.#child.on("message", (message: WorkerMessage) => {
        if (message.type === "event") log.add(message.event);
        else if (message.type === "ready") resolve();
        else if (message.type === "failed") this.#failure = message.message;
      });
      void this.#exited.then(() => reject(new Error(`fault worker ${task.worker} exited before it was ready`)));
    });
    this.#ready.catch(() => undefined);
  }

  get name(): string {
    return this.task.worker;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get alive(): boolean {
    return !this.#killed && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Why the worker failed on its own (not a fault we injected), if it did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  async start(): Promise<void> {
    await this.#ready;
    this.#send({ type: "start", task: this.task });
  }

  /** A crash: SIGKILL, recorded in the history. */
  kill(): void {
    if (this.#paused) this.resume();
    this.#killed = true;
    this.#child.kill("SIGKILL");
    this.#log.add({ type: "killed", worker: this.name, at: machineNow() });
  }

  /** A stop-the-world pause (SIGSTOP). */
  pause(): void {
    this.#paused = true;
    this.#child.kill("SIGSTOP");
  }

  resume(): void {
    this.#paused = false;
    this.#child.kill("SIGCONT");
  }

  /** Keeps the critical section of `hold` going, if it is still running, until `goOn()`: a long job under the lock. */
  holdOn(hold: string): void {
    this.#send({ type: "hold-on", hold });
  }

  goOn(): void {
    this.#send({ type: "go-on" });
  }

  /** Asks the worker to finish its current critical section and exit; SIGKILLs it after a grace period. */
  async stop(): Promise<void> {
    if (this.#paused) this.resume();
    if (!this.alive) return this.#exited;
    this.#stopping = true;
    this.#send({ type: "stop" });
    const timer = setTimeout(() => {
      this.#failure ??= `did not stop within ${STOP_GRACE_MS} ms`;
      this.#child.kill("SIGKILL");
    }, STOP_GRACE_MS);
    await this.#exited;
    clearTimeout(timer);
  }

  #send(message: ParentMessage): void {
    if (this.#child.connected) this.#child.send(message);
  }
}
