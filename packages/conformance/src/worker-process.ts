import { type ChildProcess, fork } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { backendModulesFrom } from "@distlock/core/internal";
import { type ParentMessage, TASKS_THAT_FREE_THE_WORKER, type WorkerMessage, type WorkerTask } from "./worker-protocol.js";

/** What a worker's witness calls reach: a `Witness`, or `KeyWitnesses` when a contender holds several keys. */
export interface WitnessSink {
  enter(contender: string, fencingToken: bigint | null, count?: number, key?: string): void;
  exit(contender: string, key?: string): void;
}

/** A worker process on the backend's URL, answering its witness calls. */
export interface WorkerHandle {
  readonly pid: number | undefined;
  /** Starts a task. */
  run(task: WorkerTask): void;
  /** Ends the hold of a running "rw-hold" task ("released" follows). */
  release(): void;
  /** The next message of that type; rejects if the worker reports a failure or exits first. */
  next<T extends WorkerMessage["type"]>(type: T): Promise<Extract<WorkerMessage, { type: T }>>;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: a crash, with no chance to release. */
  kill(): void;
  /** Whether its last task ended leaving it free for another (see `TASKS_THAT_FREE_THE_WORKER`), and it is still running. */
  readonly free: boolean;
  /** Takes a free worker into another test: its witness calls go to `witness`, and `next("ready")` answers at once. */
  adopt(witness: WitnessSink): void;
}

/** The compiled worker; tests that run from source still spawn the built file (build first). */
export function workerScriptPath(): string {
  const sibling = fileURLToPath(new URL("./worker.js", import.meta.url));
  if (existsSync(sibling)) return sibling;
  const built = fileURLToPath(new URL("../dist/worker.js", import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`conformance worker not built: run "npm run build" (looked for ${built})`);
}

/**
 * A worker process that builds its provider from `url`; `backendModules` are loaded first (through `DISTLOCK_BACKENDS`),
 * for a backend that registers its scheme from a module of its own.
 */
export function spawnWorker(url: string, firstWitness: WitnessSink, backendModules: readonly string[] = []): WorkerHandle {
  let witness = firstWitness;
  const child: ChildProcess = fork(workerScriptPath(), [], {
    env: { ...process.env, DISTLOCK_URL: url, DISTLOCK_BACKENDS: [...backendModulesFrom(process.env), ...backendModules].join(",") },
    execArgv: [],
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: WorkerMessage[] = [];
  const waiting: Array<() => void> = [];
  let failure: Error | undefined;
  let lastTask: WorkerTask["kind"] | undefined;
  let free = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      failure ??= new Error(`worker exited (code ${code}, signal ${signal})`);
      for (const wake of waiting.splice(0)) wake();
      resolve({ code, signal });
    });
  });
  const send = (message: ParentMessage) => {
    if (child.connected) child.send(message);
  };
  child.on("message", (message: WorkerMessage) => {
    if (message.type === "call") {
      if (message.method === "enter") witness.enter(message.contender, message.fencingToken, message.count, message.key);
      else witness.exit(message.contender, message.key);
      send({ type: "reply", id: message.id });
      return;
    }
    if (message.type === "failed") failure = Object.assign(new Error(`worker failed: ${message.message}`), { code: message.code });
    else inbox.push(message);
    if ((message.type === "done" || message.type === "released") && lastTask !== undefined && TASKS_THAT_FREE_THE_WORKER.has(lastTask)) free = true;
    for (const wake of waiting.splice(0)) wake();
  });
  return {
    pid: child.pid,
    run: (task) => {
      lastTask = task.kind;
      free = false;
      send({ type: "task", task });
    },
    release: () => send({ type: "release" }),
    async next(type) {
      for (;;) {
        const index = inbox.findIndex((m) => m.type === type);
        if (index !== -1) return inbox.splice(index, 1)[0] as never;
        if (failure !== undefined) throw failure;
        await new Promise<void>((wake) => waiting.push(wake));
      }
    },
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
    get free() {
      return free && failure === undefined && child.connected;
    },
    adopt(next) {
      witness = next;
      inbox.splice(0, inbox.length, { type: "ready" });
    },
  };
}
