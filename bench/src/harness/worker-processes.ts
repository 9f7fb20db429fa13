import { fork } from "node:child_process";

/** What a worker sends its parent: `ready` once it is set up (before waiting for the start), then its one reply. */
type WorkerMessage<Out> = { readonly kind: "ready" } | { readonly kind: "reply"; readonly reply: Out };

/** What the parent sends a worker: its input first, then (once every worker is ready) the start. */
type ParentMessage<In, Start> = { readonly kind: "input"; readonly input: In } | { readonly kind: "start"; readonly start: Start };

/** How `runInProcesses` runs its workers. */
export interface ProcessRun<In, Start> {
  readonly script: string | URL;
  readonly count: number;
  /** The input of worker `index`. */
  input(index: number): In;
  /** Called once when every worker said it is ready (set up and warmed up); its value is sent to all of them. */
  start(): Start;
  /** How long every worker may take to get ready; one that is not is killed and the run fails. */
  readonly readyTimeoutMs: number;
  /** How long a worker may run after the start before it is killed. */
  readonly runTimeoutMs: number;
}

/**
 * Runs `run.script` in `run.count` OS processes and resolves with every process's single reply. The start waits for
 * all of them to be ready, so a slow import or warm-up on a loaded machine shortens no one's measured window.
 * Rejects if a process exits without replying.
 */
export async function runInProcesses<In, Start, Out>(run: ProcessRun<In, Start>): Promise<Out[]> {
  const children = Array.from({ length: run.count }, () => fork(run.script, [], { serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] }));
  let readyCount = 0;
  const killAll = () => {
    for (const child of children) child.kill("SIGKILL");
  };
  let timer = setTimeout(killAll, run.readyTimeoutMs);
  const onReady = () => {
    readyCount += 1;
    if (readyCount < run.count) return;
    clearTimeout(timer);
    timer = setTimeout(killAll, run.runTimeoutMs);
    const start: ParentMessage<In, Start> = { kind: "start", start: run.start() };
    for (const child of children) if (child.connected) child.send(start as Parameters<typeof child.send>[0]);
  };
  try {
    return await Promise.all(
      children.map(
        (child, index) =>
          new Promise<Out>((resolve, reject) => {
            let reply: { value: Out } | undefined;
            child.on("message", (message: WorkerMessage<Out>) => {
              if (message.kind === "ready") return onReady();
              reply = { value: message.reply };
              child.disconnect();
            });
            const settle = (code: number | null, signal: NodeJS.Signals | null) => {
              if (reply === undefined) {
                killAll();
                reject(new Error(`bench worker ${index} exited (${signal ?? code}) without replying`));
              } else resolve(reply.value);
            };
            // A worker exits as soon as its reply is written: "exit" can come before the reply is read off the IPC
            // channel, which delivers it before it disconnects.
            child.once("exit", (code, signal) => {
              if (child.connected) child.once("disconnect", () => settle(code, signal));
              else settle(code, signal);
            });
            const input: ParentMessage<In, Start> = { kind: "input", input: run.input(index) };
            child.send(input as Parameters<typeof child.send>[0]);
          }),
      ),
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Inside a worker: answers the parent's input with `work(input, ready)`, then exits (whatever is still pending).
 * `work` calls `ready()` once it is set up; that resolves with the parent's start once every worker is.
 */
export function serveOneTask<In, Start, Out>(work: (input: In, ready: () => Promise<Start>) => Promise<Out>): void {
  const started = new Promise<Start>((resolve) => {
    process.on("message", (message: ParentMessage<In, Start>) => {
      if (message.kind === "start") resolve(message.start);
    });
  });
  const ready = () => {
    process.send?.({ kind: "ready" } satisfies WorkerMessage<Out>);
    return started;
  };
  process.once("message", (message: ParentMessage<In, Start>) => {
    if (message.kind !== "input") return;
    work(message.input, ready).then(
      (reply) => process.send?.({ kind: "reply", reply } satisfies WorkerMessage<Out>, () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
