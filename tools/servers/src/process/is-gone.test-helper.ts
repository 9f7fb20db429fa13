/** Whether no process has the id `pid` (any signal to it fails). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
