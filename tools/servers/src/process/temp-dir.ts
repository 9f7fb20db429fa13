import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trackDirectory, untrackDirectory } from "./cleanup-registry.js";
import type { OsUser } from "./os-user.js";
import { isProcessGone } from "./process-tree.js";

const PREFIX = "distlock-test-";
const OWNED = /^distlock-test-(\d+)-/;

/**
 * Creates a fresh directory `<tmpdir>/distlock-test-<pid>-<kind>-XXXXXX`, owned by `owner` when
 * given, and registers it for removal when this process exits.
 */
export async function createTempDir(kind: string, owner?: OsUser): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-${kind}-`));
  trackDirectory(directory);
  if (owner !== undefined) await chown(directory, owner.uid, owner.gid);
  return directory;
}

/** Removes a directory made by {@link createTempDir}. */
export async function removeTempDir(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true, maxRetries: 3 });
  untrackDirectory(directory);
}

/** Removes temp dirs left behind by test processes that were killed; resolves with how many. */
export async function sweepStaleTempDirs(): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(tmpdir())) {
    const owner = OWNED.exec(entry)?.[1];
    if (owner === undefined || !isProcessGone(Number(owner))) continue;
    try {
      await rm(join(tmpdir(), entry), { recursive: true, force: true });
      removed++;
    } catch {
      // Someone else's directory; leave it.
    }
  }
  return removed;
}
