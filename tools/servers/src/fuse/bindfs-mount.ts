import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { runCommand } from "../process/run-command.js";
import { createTempDir, removeTempDir } from "../process/temp-dir.js";

const MOUNT_TIMEOUT_MS = 20_000;

/** A FUSE mount: `dir` mirrors a fresh temp dir through bindfs, and shows as `fuse` in /proc/mounts. */
export class BindfsMount implements AsyncDisposable {
  /** The mounted directory: files written here go through FUSE. */
  readonly dir: string;
  readonly #source: string;
  readonly #fusermount: string;

  constructor(dir: string, source: string, fusermount: string) {
    this.dir = dir;
    this.#source = source;
    this.#fusermount = fusermount;
  }

  /** Unmounts and removes both directories. */
  async close(): Promise<void> {
    await runCommand(this.#fusermount, ["-u", this.dir], { timeoutMs: MOUNT_TIMEOUT_MS });
    await Promise.all([removeTempDir(this.dir), removeTempDir(this.#source)]);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Mounts a fresh temp dir through bindfs (installing it like a server binary when missing); bindfs returns once mounted. */
export async function mountBindfs(): Promise<BindfsMount> {
  const binaries = await ensureServerBinaries(["bindfs"]);
  const [source, dir] = await Promise.all([createTempDir("bindfs-source"), createTempDir("bindfs-mount")]);
  try {
    await runCommand(binaryPath(binaries, "bindfs"), [source, dir], { timeoutMs: MOUNT_TIMEOUT_MS });
  } catch (error) {
    await Promise.all([removeTempDir(dir), removeTempDir(source)]);
    throw error;
  }
  return new BindfsMount(dir, source, binaryPath(binaries, "fusermount"));
}
