import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** A lockd server running as a child process of this one. */
export interface LockdServer {
  /** `lockd://127.0.0.1:<port>`. */
  readonly url: string;
  readonly pid: number;
  /** SIGSTOPs the server: connections stay open, nothing is answered, and leases keep running out on its clock. */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** Ends the server (resuming it first if paused) and resolves once it has exited; idempotent. */
  stop(): Promise<void>;
}

/** Options of `startLockdServer`. */
export interface StartLockdServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. @default 0 */
  port?: number;
}

/**
 * Starts `lockd-server-main.js` as its own OS process on 127.0.0.1 and resolves once it accepts connections. The server
 * exits with this process (it watches its stdin), so a test that forgets `stop()` leaves nothing behind.
 */
export async function startLockdServer(options: StartLockdServerOptions = {}): Promise<LockdServer> {
  const child = spawn(process.execPath, [serverScriptPath(), "--port", String(options.port ?? 0), "--exit-with-parent"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await firstLinePort(child);
  child.unref();
  for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  const pid = child.pid as number;
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
  };
  let stopping: Promise<void> | undefined;
  return {
    url: `lockd://127.0.0.1:${port}`,
    pid,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    stop: () => {
      stopping ??= (async () => {
        // Unreferenced so it never keeps its parent alive, the child is referenced again here: a script whose last
        // step awaits stop() would otherwise end (exit 13, unsettled await) before the exit event arrives.
        child.ref();
        signal("SIGCONT");
        signal("SIGTERM");
        await exited;
      })();
      return stopping;
    },
  };
}

/** The port the server prints as its first line; rejects if it exits first. */
function firstLinePort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const failed = (code: number | null) => reject(new Error(`lockd exited (code ${code}) before it printed its port`));
    child.once("exit", failed);
    child.once("error", reject);
    lines.once("line", (line) => {
      child.off("exit", failed);
      lines.close();
      const { port } = JSON.parse(line) as { port: number };
      resolve(port);
    });
  });
}

/** The compiled server entry; tests that run this file from source still spawn the built one (build first). */
function serverScriptPath(): string {
  const sibling = fileURLToPath(new URL("./lockd-server-main.js", import.meta.url));
  if (existsSync(sibling)) return sibling;
  const built = fileURLToPath(new URL("../../dist/server/lockd-server-main.js", import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`lockd server not built: run "npm run build" in examples/custom-backend (looked for ${built})`);
}
