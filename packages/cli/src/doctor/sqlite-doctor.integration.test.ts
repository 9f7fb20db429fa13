import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mountBindfs } from "@distlock/test-servers";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectAllOk, expectRow } from "./doctor.test-support.js";
import { CheckList } from "./doctor-report.js";
import { checkFilesystem } from "./sqlite/sqlite-backend-checks.js";

const made: string[] = [];
const freshDir = (parent = tmpdir()) => {
  const dir = mkdtempSync(join(parent, "distlock-doctor-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("doctor on SQLite", () => {
  it("passes a file on a local disk: filesystem, directory, a second process excluded, WAL, nothing left held", async () => {
    const file = join(freshDir(), "locks.sqlite");
    const report = await checkLockBackend(`sqlite:${file}`);
    expectAllOk(report);
    expect(report.checks.map((row) => row.check)).toEqual([
      "sqlite.filesystem",
      "sqlite.directory",
      "self-test.acquire",
      "self-test.exclusion",
      "self-test.other-process",
      "self-test.fencing",
      "self-test.round-trip",
      "self-test.cleanup",
      "sqlite.journal-mode",
    ]);
    expect(expectRow(report, "sqlite.journal-mode", "ok").found).toContain("wal");
  });

  it("names tmpfs (/dev/shm) as local but gone at reboot", async () => {
    const file = join(freshDir("/dev/shm"), "locks.sqlite");
    const report = await checkLockBackend(`sqlite:${file}`, { selfTest: false });
    expect(expectRow(report, "sqlite.filesystem", "ok").found).toContain("tmpfs mounted at /dev/shm: local; its content, locks included, is gone at reboot");
  });

  it("warns of a file on a real FUSE mount (bindfs), and still shows another process kept out there", async () => {
    await using mount = await mountBindfs();
    const file = join(mount.dir, "locks.sqlite");
    const report = await checkLockBackend(`sqlite:${file}`);
    const row = expectRow(report, "sqlite.filesystem", "warn", file);
    expect(row.found).toBe(`fuse mounted at ${mount.dir}: file locks and shared memory are only as good as this filesystem's driver`);
    expectRow(report, "self-test.other-process", "ok");
    expect(report.summary).toMatchObject({ warn: 1, fail: 0 });
  });

  it("fails a directory that does not exist", async () => {
    const dir = join(freshDir(), "missing");
    const report = await checkLockBackend(`sqlite:${join(dir, "locks.sqlite")}`, { selfTest: false });
    expect(expectRow(report, "sqlite.directory", "fail", dir).found).toBe("does not exist");
  });

  it("warns of a file in rollback-journal mode (no self-test to switch it to WAL)", async () => {
    const file = join(freshDir(), "locks.sqlite");
    const database = new Database(file);
    database.pragma("journal_mode = DELETE");
    database.close();
    const report = await checkLockBackend(`sqlite:${file}`, { selfTest: false });
    expect(expectRow(report, "sqlite.journal-mode", "warn").found).toMatch(/^delete: distlock sets WAL/);
  });

  it("warns of an in-memory database", async () => {
    expectRow(await checkLockBackend("sqlite::memory:", { selfTest: false }), "sqlite.file", "warn");
  });
});

describe("the SQLite filesystem check, on a mount table the test writes", () => {
  const dir = freshDir();
  const mountsWith = (fsType: string) => {
    const mounts = join(dir, `mounts-${fsType}`);
    writeFileSync(mounts, `/dev/sda1 / ext4 rw 0 0\nserver:/export ${dir.replaceAll(" ", "\\040")} ${fsType} rw 0 0\n`);
    return mounts;
  };
  const judge = async (fsType: string) => {
    const checks = new CheckList();
    await checkFilesystem(join(dir, "locks.sqlite"), checks, mountsWith(fsType));
    return checks.results[0];
  };

  it.each(["nfs", "nfs4", "cifs", "smb3"])("fails %s, with the reason", async (fsType) => {
    const row = await judge(fsType);
    expect(row).toMatchObject({ check: "sqlite.filesystem", status: "fail", change: expect.stringContaining("local disk") });
    expect(row?.found).toContain(`${fsType} mounted at ${dir}:`);
  });

  it.each(["fuse.sshfs", "fuse", "9p"])("warns of %s", async (fsType) => {
    expect(await judge(fsType)).toMatchObject({ status: "warn", found: expect.stringContaining("only as good as this filesystem's driver") });
  });

  it("takes the deepest mount point holding the file", async () => {
    expect(await judge("xfs")).toMatchObject({ status: "ok", found: `xfs mounted at ${dir}: a local filesystem` });
  });
});
