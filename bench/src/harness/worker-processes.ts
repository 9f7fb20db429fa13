import { fork } from "node:child_process";

/**
 * Runs `script` in `count` OS processes, sending each its `input` (with its index), and resolves
 * with every process's single reply. Rejects if one exits without replying; one that has not exited
 * within `timeoutMs` is killed.
 */
export async function runInProcesses<In, Out>(script: string | URL, count: number, input: (index: number) => In, timeoutMs: number): Promise<Out[]> {
  return Promise.all(
    Array.from(
      { length: count },
      (_, index) =>
        new Promise<Out>((resolve, reject) => {
          const child = fork(script, [], { serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] });
          let reply: Out | undefined;
          const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
          child.once("message", (message: Out) => {
            reply = message;
            child.disconnect();
          });
          child.once("exit", (code, signal) => {
            clearTimeout(timer);
            if (reply === undefined) reject(new Error(`bench worker ${index} exited (${signal ?? code}) without replying within ${timeoutMs} ms`));
            else resolve(reply);
          });
          child.send(input(index) as Parameters<typeof child.send>[0]);
        }),
    ),
  );
}

/** Inside a worker: answers the parent's one input with `work(input)`, then exits (whatever is still pending). */
export function serveOneTask<In, Out>(work: (input: In) => Promise<Out>): void {
  process.once("message", (input: In) => {
    work(input).then(
      (output) => process.send?.(output, () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
