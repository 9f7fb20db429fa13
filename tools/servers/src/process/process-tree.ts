import { readdirSync, readFileSync } from "node:fs";

/** Reads `/proc` once and maps each parent pid to its children; empty where `/proc` does not exist. */
function childrenByParent(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return map;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid ..." where comm may itself contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const parent = Number(fields[1]);
    const siblings = map.get(parent) ?? [];
    siblings.push(Number(entry));
    map.set(parent, siblings);
  }
  return map;
}

/** `pid` followed by all its descendants (PostgreSQL backends call setsid(), so process groups miss them). */
export function listProcessTree(pid: number): number[] {
  const children = childrenByParent();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const child of children.get(tree[i] as number) ?? []) tree.push(child);
  }
  return tree;
}

/** Sends `signal` to one process, ignoring processes that are already gone. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Sends `signal` to `pid` and all its descendants and returns the pids signalled.
 * For SIGKILL and SIGSTOP the root is frozen first so it cannot fork while the tree is listed.
 */
export function signalProcessTree(pid: number, signal: NodeJS.Signals): number[] {
  if (signal === "SIGKILL" || signal === "SIGSTOP") signalProcess(pid, "SIGSTOP");
  const tree = listProcessTree(pid);
  for (const member of tree) signalProcess(member, signal);
  return tree;
}

/** True when `pid` no longer exists or is a zombie waiting to be reaped. */
export function isProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Resolves once every pid is gone, or after `timeoutMs` (a best effort: stragglers are left alone). */
export async function waitUntilGone(pids: readonly number[], timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (pids.every(isProcessGone)) return true;
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
