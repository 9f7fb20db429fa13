import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A running `etcdctl lock <name> [command...]` from Debian's etcd-client. */
export interface EtcdctlLock {
  readonly child: ChildProcess;
  /** Resolves with the next line etcdctl (or its command) prints on stdout. */
  nextLine(): Promise<string>;
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `etcdctl --endpoints=<endpoint> lock --ttl=<ttl> <name> [command...]`; without a command it prints its member key once it holds the lock. */
export function spawnEtcdctlLock(endpoint: string, name: string, options: { command?: readonly string[]; ttlSeconds?: number } = {}): EtcdctlLock {
  const child = spawn("etcdctl", [`--endpoints=${endpoint}`, "lock", `--ttl=${options.ttlSeconds ?? 10}`, name, ...(options.command ?? [])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    lines.push(line);
    waiting.shift()?.(line);
  });
  let read = 0;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    lines,
    exited,
    nextLine: () => {
      const index = read++;
      if (index < lines.length) return Promise.resolve(lines[index] as string);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
