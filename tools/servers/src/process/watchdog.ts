import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";

/**
 * The watchdog: a tiny detached node process that reads "+pid N", "-pid N", "+dir D", "-dir D"
 * lines on stdin. When stdin closes (this process died, however it died, even by SIGKILL) it
 * SIGKILLs every registered process tree, waits for them to die and removes the directories.
 * It covers what the exit handler and the parent-death signal cannot: SIGKILLed test processes
 * (temp dirs) and paused servers whose stopped children never notice their parent died.
 */
const WATCHDOG_SCRIPT = String.raw`
const fs = require("node:fs");
const pids = new Map();
const dirs = new Set();
let pending = "";
const statFields = (pid) => {
  try {
    const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch { return []; }
};
const ppidOf = (pid) => Number(statFields(pid)[1] ?? -1);
const startOf = (pid) => statFields(pid)[19] ?? "";
const gone = (pid) => {
  try { process.kill(pid, 0); } catch (e) { return e.code === "ESRCH"; }
  try {
    const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch { return true; }
};
const signal = (pid, sig) => { try { process.kill(pid, sig); } catch {} };
const tree = (root) => {
  let all = [];
  try { all = fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e)).map(Number); } catch {}
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const p of all) if (ppidOf(p) === found[i]) found.push(p);
  return found;
};
let done = false;
const cleanUp = async () => {
  if (done) return;
  done = true;
  const killed = [];
  for (const [pid, start] of pids) {
    // The pid may belong to another process by now: the server exited and its number was given out again.
    if (startOf(pid) !== start) continue;
    signal(pid, "SIGSTOP");
    for (const p of tree(pid)) { signal(p, "SIGKILL"); killed.push(p); }
  }
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && !killed.every(gone)) await new Promise((r) => setTimeout(r, 20));
  for (const dir of dirs) { try { fs.rmSync(dir, { recursive: true, force: true }); } catch {} }
  process.exit(0);
};
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const space = line.indexOf(" ", 1);
    const op = line[0], kind = line.slice(1, space), value = line.slice(space + 1);
    if (kind === "pid") {
      const pid = Number(value);
      if (op === "+") pids.set(pid, startOf(pid)); else pids.delete(pid);
    } else if (op === "+") dirs.add(value); else dirs.delete(value);
  }
});
process.stdin.on("end", cleanUp);
process.stdin.on("error", cleanUp);
`;

let watchdog: ChildProcess | undefined;

function stdin(): Socket | undefined {
  if (process.platform !== "linux") return undefined;
  if (watchdog === undefined) {
    watchdog = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    watchdog.unref();
    const pipe = watchdog.stdin as Socket;
    pipe.on("error", () => undefined);
    pipe.unref();
  }
  return (watchdog.stdin as Socket | null) ?? undefined;
}

/**
 * Tells the watchdog to kill process `pid` (and its descendants) if this process dies first, and only while `pid` is
 * the process it was when registered (its start time in /proc): pid numbers are given out again.
 */
export function watchPid(pid: number, watch: boolean): void {
  stdin()?.write(`${watch ? "+" : "-"}pid ${pid}\n`);
}

/** Tells the watchdog to remove `directory` if this process dies first. */
export function watchDirectory(directory: string, watch: boolean): void {
  stdin()?.write(`${watch ? "+" : "-"}dir ${directory}\n`);
}
