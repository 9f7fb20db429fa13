import { readFile, realpath } from "node:fs/promises";
import { dirname } from "node:path";

/** A line of /proc/mounts. */
export interface Mount {
  readonly mountPoint: string;
  readonly fsType: string;
  readonly source: string;
}

/** The mount holding `path` (the longest mount point above its nearest existing ancestor), or undefined without /proc/mounts. */
export async function mountOf(path: string, mountsFile = "/proc/mounts"): Promise<Mount | undefined> {
  const text = await readFile(mountsFile, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const real = await existingRealPath(path);
  let best: Mount | undefined;
  for (const line of text.split("\n")) {
    const [source, mountPoint, fsType] = line.split(" ").map(unescapeMountField);
    if (source === undefined || mountPoint === undefined || fsType === undefined) continue;
    const inside = real === mountPoint || real.startsWith(mountPoint.endsWith("/") ? mountPoint : `${mountPoint}/`);
    // A later line for the same mount point is mounted over the earlier one.
    if (inside && (best === undefined || mountPoint.length >= best.mountPoint.length)) best = { mountPoint, fsType, source };
  }
  return best;
}

async function existingRealPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : existingRealPath(parent);
  }
}

/** /proc/mounts writes space, tab, newline and backslash as octal escapes. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
