import { closeSync, openSync, readSync, statSync } from "node:fs";

const TAIL_BYTES = 8 * 1024;
const TAIL_LINES = 40;

/** Current size of a log file (0 when it does not exist yet). */
export function logFileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The last lines written to `file` after byte `from`. */
export function readLogTail(file: string, from = 0): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return "";
  }
  try {
    const size = statSync(file).size;
    const start = Math.max(from, size - TAIL_BYTES);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString("utf8").split("\n");
    if (start > from) lines.shift(); // Partial first line.
    return lines.slice(-TAIL_LINES).join("\n").trimEnd();
  } finally {
    closeSync(fd);
  }
}
