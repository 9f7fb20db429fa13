import { fileURLToPath } from "node:url";
import { type RedisServer, startRedis } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, nodeCommand, runCli, startCli } from "./cli-process.test-support.js";
import { ExitCode } from "./exit-codes.js";

const TRAP_TERM = nodeCommand(
  "process.on('SIGTERM', () => process.exit(7)); console.log('ready ' + process.env.DISTLOCK_FENCING_TOKEN); setInterval(() => {}, 1000);",
);

let redis: RedisServer;
const running: CliRun[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const run of running) run.child.kill("SIGKILL");
  await redis?.close();
});

function hold(key: string, permits: number, extra: string[] = []): CliRun {
  const run = startCli(["run", key, "--permits", String(permits), "--url", redis.url, ...extra, "--", ...TRAP_TERM]);
  running.push(run);
  return run;
}

describe("distlock run and status --permits (built binary, redis)", () => {
  it("runs at most N commands at once: N run together, the next waits for one to end, --no-wait and --wait give up with 75", async () => {
    const key = `cli-permits-${crypto.randomUUID()}`;
    const [first, second] = [hold(key, 2), hold(key, 2)];
    await Promise.all([first.waitFor("ready"), second.waitFor("ready")]);
    expect(first.stdout()).toMatch(/^ready \d+$/m);
    expect(first.stdout().trim()).not.toBe(second.stdout().trim());
    const refused = await runCli(["run", key, "--permits", "2", "--url", redis.url, "--no-wait", "--", "true"]);
    expect(refused.code).toBe(ExitCode.LockTimeout);
    expect(refused.stderr).toContain(`all 2 permits of "${key}" are held`);
    const timedOut = await runCli(["run", key, "--permits", "2", "--url", redis.url, "--wait", "300ms", "--", "true"]);
    expect(timedOut.code).toBe(ExitCode.LockTimeout);
    expect(timedOut.stderr).toContain("LOCK_TIMEOUT");
    const third = hold(key, 2);
    // A CLI process takes a while to start on a loaded machine: wait for the fact, within a generous bound.
    await expect.poll(() => redis.command("LLEN", `{distlock:${key}}:sem:queue`), { timeout: 15_000 }).toBe(1);
    expect(third.stdout()).toBe("");
    const status = JSON.parse((await runCli(["status", key, "--permits", "2", "--url", redis.url, "--json"])).stdout);
    expect(status.semaphores[0]).toMatchObject({ key, held: true, permits: 2, inUse: 2, waiters: 1 });
    expect(status.semaphores[0].holders.map((h: { count: number }) => h.count)).toEqual([1, 1]);
    expect((await runCli(["status", key, "--permits", "2", "--url", redis.url])).stdout).toMatch(/2\/2/);
    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(7);
    await third.waitFor("ready");
    second.child.kill("SIGTERM");
    third.child.kill("SIGTERM");
    expect(await Promise.all([second.exit, third.exit])).toEqual([7, 7]);
    expect(await redis.command("EXISTS", `{distlock:${key}}:sem:holders`)).toBe(0);
    expect(JSON.parse((await runCli(["status", key, "--permits", "2", "--url", redis.url, "--json"])).stdout).semaphores[0]).toEqual({
      key,
      held: false,
      inUse: 0,
    });
  });

  it("refuses another permit count while the semaphore is in use (64, PERMITS_MISMATCH) and a bad --permits (64)", async () => {
    const key = `cli-permits-${crypto.randomUUID()}`;
    const holder = hold(key, 2);
    await holder.waitFor("ready");
    const mismatch = await runCli(["run", key, "--permits", "3", "--url", redis.url, "--", "true"]);
    expect(mismatch.code).toBe(ExitCode.Usage);
    expect(mismatch.stderr).toContain("PERMITS_MISMATCH");
    for (const bad of ["0", "-1", "2.5", "many"]) {
      const result = await runCli(["run", key, "--permits", bad, "--url", redis.url, "--", "true"]);
      expect(result.code).toBe(ExitCode.Usage);
      expect(result.stderr).toContain("--permits");
    }
    holder.child.kill("SIGTERM");
    expect(await holder.exit).toBe(7);
  });

  it("exits 78 with UNSUPPORTED_OPERATION on a backend without semaphores, before running the command", async () => {
    // Every built-in backend has semaphores; a third-party one may not.
    const backend = fileURLToPath(new URL("../test/fixtures/locks-only-backend.mjs", import.meta.url));
    const result = await runCli(["run", "k", "--permits", "2", "--backend-module", backend, "--url", "locks-only:x", "--", "sh", "-c", "echo ran"]);
    expect(result.code).toBe(ExitCode.Config);
    expect(result.stderr).toContain("UNSUPPORTED_OPERATION");
    expect(result.stdout).not.toContain("ran");
    expect((await runCli(["run", "k", "--backend-module", backend, "--url", "locks-only:x", "--", "sh", "-c", "echo ran"])).stdout).toContain("ran");
  });
});
