import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresServer, type RedisServer, startPostgres, startRedis } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeCommand, runCli, startCli } from "./cli-process.test-support.js";
import { ExitCode } from "./exit-codes.js";

const HOLD_UNTIL_ORPHANED = nodeCommand("const p = process.ppid; setInterval(() => { if (process.ppid !== p) process.exit(0); }, 50);");
const TRAP_TERM = nodeCommand(
  "process.on('SIGTERM', () => { console.log('child got SIGTERM'); process.exit(7); }); console.log('child ready'); setInterval(() => {}, 1000);",
);

let redis: RedisServer;
let postgres: PostgresServer;
const backends: Array<[string, () => string]> = [
  ["sqlite", () => `sqlite:${join(mkdtempSync(join(tmpdir(), "distlock-cli-")), "locks.sqlite")}`],
  ["redis", () => redis.url],
  ["postgres", () => postgres.url],
];

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
});
afterAll(async () => {
  await Promise.all([redis?.close(), postgres?.close()]);
});

describe.each(backends)("distlock on %s", (_, makeUrl) => {
  let url: string;
  let key = "";
  beforeAll(() => {
    url = makeUrl();
  });
  const freshKey = () => {
    key = `cli-${crypto.randomUUID()}`;
    return key;
  };

  it("run exits with the command's code and hands it the fencing token; --json reports lock events", async () => {
    const result = await runCli([
      "run",
      freshKey(),
      "--url",
      url,
      "--json",
      "--",
      ...nodeCommand("console.log('token=' + process.env.DISTLOCK_FENCING_TOKEN); process.exit(3)"),
    ]);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^token=\d+$/m);
    const events = result.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.event)).toEqual(["acquired", "released"]);
    expect(`token=${events[0].fencingToken}`).toBe(result.stdout.trim());
  });

  it("run exits 75 when the key is held: at once with --no-wait, after --wait otherwise", async () => {
    const holder = startCli(["run", freshKey(), "--url", url, "--", ...TRAP_TERM]);
    await holder.waitFor("child ready");
    expect((await runCli(["run", key, "--url", url, "--no-wait", "--", "true"])).code).toBe(ExitCode.LockTimeout);
    const waited = await runCli(["run", key, "--url", url, "--wait", "300ms", "--", "true"]);
    expect(waited.code).toBe(ExitCode.LockTimeout);
    expect(waited.stderr).toContain("LOCK_TIMEOUT");
    holder.child.kill("SIGTERM");
    expect(await holder.exit).toBe(7);
  });

  it("run forwards signals to the command and releases the lock after it exits", async () => {
    const run = startCli(["run", freshKey(), "--url", url, "--", ...TRAP_TERM]);
    await run.waitFor("child ready");
    const status = await runCli(["status", key, "--url", url, "--json"]);
    expect(JSON.parse(status.stdout).locks[0]).toMatchObject({ key, held: true, holdCount: 1 });
    run.child.kill("SIGTERM");
    expect(await run.exit).toBe(7);
    expect(run.stdout()).toContain("child got SIGTERM");
    expect(JSON.parse((await runCli(["status", key, "--url", url, "--json"])).stdout).locks[0]).toEqual({ key, held: false });
  });

  it("run with several keys holds them all or none and hands the command every key's token", async () => {
    const [first, second] = [freshKey(), `${key}-b`];
    const holder = startCli(["run", second, "--url", url, "--", ...TRAP_TERM]);
    await holder.waitFor("child ready");
    const refused = await runCli(["run", second, first, "--url", url, "--no-wait", "--", "true"]);
    expect(refused.code).toBe(ExitCode.LockTimeout);
    expect(refused.stderr).toContain(`one of the locks "${second}", "${first}" is held by someone else`);
    expect(JSON.parse((await runCli(["status", first, "--url", url, "--json"])).stdout).locks[0]).toEqual({ key: first, held: false });
    holder.child.kill("SIGTERM");
    expect(await holder.exit).toBe(7);
    const result = await runCli([
      "run",
      second,
      first,
      "--url",
      url,
      "--json",
      "--",
      ...nodeCommand("console.log(process.env.DISTLOCK_KEYS + ' ' + process.env.DISTLOCK_FENCING_TOKENS + ' ' + (process.env.DISTLOCK_KEY ?? '-'))"),
    ]);
    expect(result.code).toBe(0);
    const [keys, tokens, single] = result.stdout.trim().split(" ");
    expect(JSON.parse(keys as string)).toEqual([first, second]);
    expect(Object.keys(JSON.parse(tokens as string))).toEqual([first, second]);
    expect(single).toBe("-");
    const acquired = JSON.parse(result.stderr.trim().split("\n")[0] as string);
    expect(acquired).toMatchObject({ event: "acquired", keys: [first, second], fencingTokens: JSON.parse(tokens as string) });
    expect(await runCli(["run", first, second, "--permits", "2", "--url", url, "--", "true"])).toMatchObject({ code: ExitCode.Usage });
  });

  it("run terminates the command and exits 76 when the lock is lost", async () => {
    const run = startCli(["run", freshKey(), "--url", url, "--ttl", "2s", "--", ...TRAP_TERM]);
    await run.waitFor("child ready");
    const release = await runCli(["release", "--force", key, "--url", url, "--json"]);
    expect(JSON.parse(release.stdout)).toEqual({ key, freed: true });
    expect(await run.exit).toBe(ExitCode.LockLost);
    expect(run.stdout()).toContain("child got SIGTERM");
    expect(run.stderr()).toContain("was lost");
  });

  it("elect runs the command on one node only, and another takes over within the lease when the leader dies", async () => {
    const name = freshKey();
    const nodes = [0, 1].map(() => startCli(["elect", name, "--url", url, "--ttl", "2s", "--json", "--", ...HOLD_UNTIL_ORPHANED]));
    await Promise.race(nodes.map((n) => n.waitFor('"event":"elected"')));
    const leaderIndex = nodes.findIndex((n) => n.stderr().includes('"event":"elected"'));
    const [leader, follower] = [nodes[leaderIndex], nodes[1 - leaderIndex]] as const;
    const firstTerm = JSON.parse(
      leader
        ?.stderr()
        .trim()
        .split("\n")
        .find((l) => l.includes("elected")) ?? "{}",
    );
    expect(follower?.stderr()).not.toContain('"event":"elected"');
    const killedAt = performance.now();
    leader?.child.kill("SIGKILL");
    await follower?.waitFor('"event":"elected"', 10_000);
    expect(performance.now() - killedAt).toBeLessThan(2_000 + 3_000);
    const secondTerm = JSON.parse(
      follower
        ?.stderr()
        .trim()
        .split("\n")
        .find((l) => l.includes("elected")) ?? "{}",
    );
    expect(BigInt(secondTerm.fencingToken)).toBeGreaterThan(BigInt(firstTerm.fencingToken));
    follower?.child.kill("SIGTERM");
    expect(await follower?.exit).toBe(128 + 15);
  });
});

describe("distlock errors and help", () => {
  it.each(["run", "elect", "status", "release", "demo"])("%s --help prints its usage and exits 0", async (command) => {
    const result = await runCli([command, "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: distlock ${command}`);
  });

  it("a usage mistake is one line on stderr with exit 64", async () => {
    const result = await runCli(["run", "k", "--url", "memory:"]);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect((await runCli(["frobnicate"])).code).toBe(ExitCode.Usage);
    expect((await runCli(["status", "k", "--bogus"])).code).toBe(ExitCode.Usage);
  });

  it("a bad URL exits 78 without echoing the password", async () => {
    const result = await runCli(["status", "k", "--url", "redis://admin:hunter2@host:99999"]);
    expect(result.code).toBe(ExitCode.Config);
    expect(result.stderr).toContain("url.port");
    expect(result.stderr).not.toContain("hunter2");
  });

  it("an unreachable server exits 69 promptly", async () => {
    const result = await runCli(["status", "k", "--url", "redis://:hunter2@127.0.0.1:1"]);
    expect(result.code).toBe(ExitCode.Unavailable);
    expect(result.stderr).not.toContain("hunter2");
  });

  it("the demo elects a dispatcher, survives killing it, sees no overlaps, and its fenced row refuses a paused holder's late write (the README's main job)", async () => {
    const demoDirs = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("distlock-demo-")));
    const before = demoDirs();
    const result = await runCli(["demo", "--workers", "3", "--duration", "6s", "--json"]);
    expect([...demoDirs()].filter((name) => !before.has(name))).toEqual([]);
    // One assertion over the exit code, stderr and the summary, so that a failure shows which promise the run broke.
    expect({ code: result.code, stderr: result.stderr, summary: jsonOrText(result.stdout) }).toMatchObject({
      code: 0,
      stderr: "",
      summary: { backend: "sqlite", overlaps: 0, staleWritesRefused: 0, leaderTokensIncrease: true, lateWriteRefused: true, finalPrice: 120 },
    });
    const summary = JSON.parse(result.stdout);
    expect(summary.leaderTerms).toBeGreaterThanOrEqual(2);
    expect(summary.criticalSections).toBeGreaterThan(10);
    expect(summary.failoverMs).toBeLessThan(1_500 + 2_000);
  });
});

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
