import { readFileSync } from "node:fs";

/** Numeric ids of an OS account. */
export interface OsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** Looks `name` up in /etc/passwd; undefined when there is no such account. */
export function lookupOsUser(name: string): OsUser | undefined {
  let passwd: string;
  try {
    passwd = readFileSync("/etc/passwd", "utf8");
  } catch {
    return undefined;
  }
  for (const line of passwd.split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined) {
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  return undefined;
}

/** True when this process runs as root. */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}
