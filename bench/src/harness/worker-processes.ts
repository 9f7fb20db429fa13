import { fork } from "node:child_process";

/**
 * Runs `script` in `count` OS processes, sending each its `input` (with its index), and resolves
 * with every process's single reply. Rejects if one exits without replying.
 */
export async function runInProcesses<In, Out>(script: string | URL, count: number, input: (index: number) => In): Promise<Out[]> {
  return Promise.all(
    Array.from(
      { length: count },
      (_, index) =>
        new Promise<Out>((resolve, reject) => {
          const child = fork(script, [], { serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] });
          let reply: Out | undefined;
          child.once("message", (message: Out) => {
            reply = message;
            child.disconnect();
          });
          child.once("exit", (code) => (reply === undefined ? reject(new Error(`bench worker ${index} exited with ${code} before replying`)) : resolve(reply)));
          child.send(input(index) as Parameters<typeof child.send>[0]);
        }),
    ),
  );
}

/** Inside a worker: answers the parent's one input with `work(input)`. */
export function serveOneTask<In, Out>(work: (input: In) => Promise<Out>): void {
  process.once("message", (input: In) => {
    work(input).then(
      (output) => process.send?.(output),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
