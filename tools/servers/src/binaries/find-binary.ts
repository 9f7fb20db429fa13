import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";

const found = new Map<string, string>();

/** Directories searched after PATH: sbin dirs and Debian's versioned PostgreSQL dirs, newest first. */
export function knownBinaryDirs(): string[] {
  const dirs = ["/usr/local/sbin", "/usr/sbin", "/sbin"];
  try {
    const versions = readdirSync("/usr/lib/postgresql")
      .filter((entry) => /^\d+(\.\d+)?$/.test(entry))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) dirs.push(`/usr/lib/postgresql/${version}/bin`);
  } catch {
    // No Debian PostgreSQL layout.
  }
  return dirs;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Absolute path of the first executable named `name` in `preferredDir`, PATH, then the known dirs;
 * undefined when there is none. Hits are cached, misses are not (a package may be installed later).
 */
export function findBinary(name: string, preferredDir?: string): string | undefined {
  const key = `${preferredDir ?? ""}\0${name}`;
  const cached = found.get(key);
  if (cached !== undefined) return cached;
  const pathDirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  const dirs = [...(preferredDir === undefined ? [] : [preferredDir]), ...pathDirs, ...knownBinaryDirs()];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) {
      found.set(key, candidate);
      return candidate;
    }
  }
  return undefined;
}
