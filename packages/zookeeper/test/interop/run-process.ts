import { spawn } from "node:child_process";

/** Runs a command to its end (with `env`, else this process's environment); resolves with its stdout, rejects with its stderr when it fails. */
export function runProcess(command: string, args: readonly string[], onLine?: (line: string) => void, env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (onLine !== undefined) for (const line of chunk.toString("utf8").split("\n")) if (line !== "") onLine(line);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(" ")} ended with ${signal ?? `code ${code}`}:\n${stderr.slice(-4000)}`));
    });
  });
}
