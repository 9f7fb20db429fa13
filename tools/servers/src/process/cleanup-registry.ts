import { rmSync } from "node:fs";
import { signalProcessTree } from "./process-tree.js";
import { watchDirectory, watchPid } from "./watchdog.js";

const children = new Set<number>();
const directories = new Set<string>();
let installed = false;

/** Kills every tracked server and removes every tracked directory; runs synchronously on exit. */
function cleanUpNow(): void {
  for (const pid of children) {
    try {
      signalProcessTree(pid, "SIGKILL");
    } catch {
      // Nothing more can be done while the process exits.
    }
  }
  children.clear();
  for (const directory of directories) {
    try {
      rmSync(directory, { recursive: true, force: true });
    } catch {
      // Best effort.
    }
  }
  directories.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", cleanUpNow);
}

/**
 * Registers a server process to be SIGKILLed if this process exits while it runs: by the exit
 * handler, and by the watchdog if this process is killed without running exit handlers.
 */
export function trackChild(pid: number): void {
  install();
  children.add(pid);
  watchPid(pid, true);
}

export function untrackChild(pid: number): void {
  children.delete(pid);
  watchPid(pid, false);
}

/** Registers a temp directory to be removed if this process exits before the server is closed. */
export function trackDirectory(directory: string): void {
  install();
  directories.add(directory);
  watchDirectory(directory, true);
}

export function untrackDirectory(directory: string): void {
  directories.delete(directory);
  watchDirectory(directory, false);
}
