import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import type { LockUrl } from "@distlock/core/driver";
import { describeError } from "../doctor-errors.js";
import type { CheckList } from "../doctor-report.js";
import { mountOf } from "./mount-of.js";

/** Filesystems whose file locks cannot be trusted between machines, and why. */
const NETWORK_FILESYSTEMS: ReadonlyMap<string, string> = new Map([
  ["nfs", "NFS byte-range locks go through lockd and are lost or broken across a network partition or server restart"],
  ["nfs4", "NFSv4 locks are leases the server may revoke during a partition, and WAL's shared memory is not shared across machines"],
  ["cifs", "SMB/CIFS byte-range locks are advisory to the client cache and not reliable for SQLite"],
  ["smb3", "SMB byte-range locks are advisory to the client cache and not reliable for SQLite"],
  ["smbfs", "SMB byte-range locks are advisory to the client cache and not reliable for SQLite"],
  ["ceph", "CephFS locks depend on the MDS and client caps; SQLite's WAL needs shared memory on one machine"],
  ["glusterfs", "GlusterFS POSIX locks are known to misbehave under SQLite"],
]);

/** Filesystems that may work but only as well as the driver behind them. */
const DOUBTFUL_PREFIXES = ["fuse", "9p", "virtiofs", "vboxsf", "davfs"];

/** The file's filesystem and the directory's permissions (before the self-test, which adds a second process). */
export async function checkSqliteFile(url: LockUrl, checks: CheckList): Promise<boolean> {
  if (isInMemory(url)) {
    checks.add("sqlite.file", "warn", "an in-memory database: locks exclude only within this process", "use sqlite:<path to a file> to lock across processes");
    return true;
  }
  const file = resolve(url.path);
  await checkFilesystem(file, checks);
  await checkDirectory(dirname(file), checks);
  return true;
}

/** The journal mode of the file the self-test opened. */
export async function checkSqliteJournal(url: LockUrl, checks: CheckList): Promise<boolean> {
  if (!isInMemory(url)) await checkJournalMode(resolve(url.path), checks);
  return true;
}

function isInMemory(url: LockUrl): boolean {
  return url.path === ":memory:" || url.path === "";
}

/** Judges the filesystem `file` is on, from the mount table (`mountsFile`, /proc/mounts unless a test gives another). */
export async function checkFilesystem(file: string, checks: CheckList, mountsFile?: string): Promise<void> {
  const mount = await mountOf(file, mountsFile);
  if (mount === undefined) {
    checks.add("sqlite.filesystem", "warn", "could not read /proc/mounts to tell the file's filesystem", "make sure the file is on a local disk", file);
    return;
  }
  const found = `${mount.fsType} mounted at ${mount.mountPoint}`;
  const network = NETWORK_FILESYSTEMS.get(mount.fsType);
  if (network !== undefined) {
    checks.add(
      "sqlite.filesystem",
      "fail",
      `${found}: ${network}`,
      "put the file on a local disk, or use a lock server (PostgreSQL, Redis, etcd) across machines",
      file,
    );
    return;
  }
  if (DOUBTFUL_PREFIXES.some((prefix) => mount.fsType.startsWith(prefix))) {
    checks.add(
      "sqlite.filesystem",
      "warn",
      `${found}: file locks and shared memory are only as good as this filesystem's driver`,
      "put the file on a local disk (ext4, xfs, btrfs, tmpfs)",
      file,
    );
    return;
  }
  const note = mount.fsType === "tmpfs" ? ": local; its content, locks included, is gone at reboot" : ": a local filesystem";
  checks.ok("sqlite.filesystem", `${found}${note}`, file);
}

async function checkDirectory(directory: string, checks: CheckList): Promise<void> {
  if (
    !(await stat(directory).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    checks.add("sqlite.directory", "fail", "does not exist", "create the directory (distlock creates the file, not its directory)", directory);
    return;
  }
  try {
    await access(directory, constants.W_OK | constants.X_OK);
    checks.ok("sqlite.directory", "writable: SQLite can create the -wal and -shm files next to the database", directory);
  } catch (error) {
    checks.add(
      "sqlite.directory",
      "fail",
      `not writable by this user: ${describeError(error)}`,
      "give the user write access to the directory (SQLite creates -wal and -shm files there)",
      directory,
    );
  }
}

async function checkJournalMode(file: string, checks: CheckList): Promise<void> {
  if (
    !(await stat(file).then(
      () => true,
      () => false,
    ))
  ) {
    checks.ok("sqlite.journal-mode", "the file does not exist yet; distlock creates it with journal_mode WAL", file);
    return;
  }
  try {
    const Database = createRequire(import.meta.url)("better-sqlite3") as new (
      path: string,
      options: object,
    ) => { pragma(sql: string, options: object): unknown; close(): void };
    const database = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const mode = String(database.pragma("journal_mode", { simple: true }));
      if (mode === "wal") checks.ok("sqlite.journal-mode", "wal: readers never block the writer", file);
      else
        checks.add(
          "sqlite.journal-mode",
          "warn",
          `${mode}: distlock sets WAL when it opens the file; ${mode} means it could not (or another program reset it)`,
          "run PRAGMA journal_mode = WAL once, on a filesystem that supports shared memory",
          file,
        );
    } finally {
      database.close();
    }
  } catch (error) {
    checks.add(
      "sqlite.journal-mode",
      "fail",
      `could not open the file: ${describeError(error)}`,
      "check the file's permissions and that it is an SQLite database",
      file,
    );
  }
}
