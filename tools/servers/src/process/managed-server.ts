import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { ServerStartError } from "../errors/server-start-error.js";
import { TestServerError } from "../errors/test-server-error.js";
import { trackChild, untrackChild } from "./cleanup-registry.js";
import { guardedCommand } from "./guarded-command.js";
import { logFileSize, readLogTail } from "./log-file.js";
import type { OsUser } from "./os-user.js";
import { releasePorts } from "./ports.js";
import { listProcessTree, signalProcess, signalProcessTree, waitUntilGone } from "./process-tree.js";
import type { ServerProcess } from "./server-process.js";
import { removeTempDir } from "./temp-dir.js";

/** How to run one server; fixed for the server's life so restarts reuse port and data dir. */
export interface ManagedServerConfig {
  /** See {@link ServerProcess.name}. */
  readonly name: string;
  /** The client port. */
  readonly port: number;
  /** Every port reserved for this server (client, peer, bus...), released by `close()`. */
  readonly reservedPorts: readonly number[];
  /** Temp dir created for this server; the working directory of the process. */
  readonly dataDir: string;
  /** Receives stdout and stderr, appended across restarts. */
  readonly logFile: string;
  /** Absolute path of the server binary. */
  readonly command: string;
  readonly args: readonly string[];
  /** OS user to run as; only set when this process is root and the server refuses root. */
  readonly user?: OsUser | undefined;
  /** Signal asking for a graceful shutdown. */
  readonly stopSignal: NodeJS.Signals;
  /** How long `start()` waits for the readiness probe. */
  readonly startTimeoutMs: number;
  /** How long `stop()` waits before escalating to SIGKILL. */
  readonly stopTimeoutMs: number;
}

interface RunningProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with a description of how the process ended. */
  readonly exited: Promise<string>;
  paused: boolean;
  /** Descendants stopped by pause(), tracked for cleanup: stopped, they cannot notice their parent die. */
  frozen: number[];
  done: boolean;
}

const GONE_TIMEOUT_MS = 5_000;

/** Stops tracking the descendants pause() tracked. */
function thaw(running: RunningProcess): void {
  for (const pid of running.frozen) untrackChild(pid);
  running.frozen = [];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A server child process with readiness probing, crash/pause simulation and cleanup. */
export abstract class ManagedServer implements ServerProcess {
  readonly name: string;
  readonly host = "127.0.0.1" as const;
  readonly port: number;
  readonly dataDir: string;
  readonly logFile: string;
  readonly #config: ManagedServerConfig;
  #process: RunningProcess | undefined;
  #starting: Promise<void> | undefined;
  #closed = false;

  constructor(config: ManagedServerConfig) {
    this.#config = Object.freeze({
      ...config,
      args: Object.freeze([...config.args]),
      reservedPorts: Object.freeze([...config.reservedPorts]),
    });
    this.name = config.name;
    this.port = config.port;
    this.dataDir = config.dataDir;
    this.logFile = config.logFile;
  }

  /** One readiness attempt against the process `pid`: true once it answers real requests. */
  protected abstract probe(pid: number): Promise<boolean>;

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  get paused(): boolean {
    return this.#process?.paused ?? false;
  }

  logTail(): string {
    return readLogTail(this.logFile);
  }

  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new TestServerError(`${this.name} is closed; start a new server.`));
    if (this.#starting !== undefined) return this.#starting;
    if (this.#process !== undefined) return Promise.resolve();
    this.#starting = this.#launch().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async kill(): Promise<void> {
    const running = this.#process;
    if (running === undefined) return;
    const tree = signalProcessTree(running.pid, "SIGKILL");
    await this.#awaitExit(running);
    await waitUntilGone(tree, GONE_TIMEOUT_MS);
  }

  async stop(): Promise<void> {
    const running = this.#process;
    if (running === undefined) return;
    if (running.paused) this.resume();
    const tree = listProcessTree(running.pid);
    signalProcess(running.pid, this.#config.stopSignal);
    const escalate = setTimeout(() => {
      if (!running.done) signalProcessTree(running.pid, "SIGKILL");
    }, this.#config.stopTimeoutMs);
    try {
      await this.#awaitExit(running);
    } finally {
      clearTimeout(escalate);
    }
    await waitUntilGone(tree, GONE_TIMEOUT_MS);
  }

  pause(): void {
    const running = this.#process;
    if (running === undefined) throw new TestServerError(`${this.name} is not running; start() it before pause().`);
    if (running.paused) return;
    const tree = signalProcessTree(running.pid, "SIGSTOP");
    running.frozen = tree.filter((pid) => pid !== running.pid);
    for (const pid of running.frozen) trackChild(pid);
    running.paused = true;
  }

  resume(): void {
    const running = this.#process;
    if (running === undefined) return;
    signalProcessTree(running.pid, "SIGCONT");
    running.paused = false;
    thaw(running);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.stop();
    } finally {
      await removeTempDir(this.dataDir);
      releasePorts(this.#config.reservedPorts);
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #launch(): Promise<void> {
    const config = this.#config;
    const logStart = logFileSize(config.logFile);
    const running = await this.#spawn(logStart);
    const deadline = performance.now() + config.startTimeoutMs;
    for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
      const outcome = await Promise.race([running.exited, this.probe(running.pid).catch(() => false)]);
      if (typeof outcome === "string") {
        throw new ServerStartError(this.name, `exited (${outcome}) before it was ready`, readLogTail(config.logFile, logStart));
      }
      if (outcome && !running.done) return;
      if (performance.now() >= deadline) {
        await this.kill();
        throw new ServerStartError(this.name, `not ready after ${config.startTimeoutMs} ms`, readLogTail(config.logFile, logStart));
      }
      await Promise.race([running.exited, sleep(delay)]);
    }
  }

  async #spawn(logStart: number): Promise<RunningProcess> {
    const config = this.#config;
    const line = guardedCommand(config.command, config.args, config.user);
    const log = openSync(config.logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(line.command, line.args, { cwd: config.dataDir, stdio: ["ignore", log, log], detached: true });
    } finally {
      closeSync(log);
    }
    const pid = child.pid;
    if (pid === undefined) {
      const [error] = (await once(child, "error")) as [Error];
      throw new ServerStartError(this.name, `could not spawn ${config.command}: ${error.message}`, readLogTail(config.logFile, logStart));
    }
    trackChild(pid);
    child.unref();
    let resolveExit: (how: string) => void = () => {};
    const running: RunningProcess = {
      child,
      pid,
      exited: new Promise<string>((resolve) => {
        resolveExit = resolve;
      }),
      paused: false,
      frozen: [],
      done: false,
    };
    child.once("exit", (code, signal) => {
      running.done = true;
      untrackChild(pid);
      thaw(running);
      if (this.#process === running) this.#process = undefined;
      resolveExit(signal === null ? `exit code ${code}` : signal);
    });
    this.#process = running;
    return running;
  }

  /** Keeps the event loop alive while waiting: the child itself is unref'ed. */
  async #awaitExit(running: RunningProcess): Promise<void> {
    running.child.ref();
    try {
      await running.exited;
    } finally {
      running.child.unref();
    }
  }
}
