import { type RedisGroup, type RedisServer, startRedis, startRedisGroup } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli-process.test-support.js";
import { ExitCode } from "../exit-codes.js";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectAllOk, expectRow, rowsOf } from "./doctor.test-support.js";

const DURABLE = ["--appendonly", "yes"];
let sound: RedisServer;
let volatileLru: RedisServer;
let allkeysLru: RedisServer;
let latentEviction: RedisServer;
let replica: RedisServer;
let group: RedisGroup;

beforeAll(async () => {
  [sound, volatileLru, allkeysLru, latentEviction, group] = await Promise.all([
    startRedis({ args: DURABLE }),
    startRedis({ args: ["--maxmemory", "10mb", "--maxmemory-policy", "volatile-lru"] }),
    startRedis({ args: [...DURABLE, "--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru"] }),
    startRedis({ args: [...DURABLE, "--maxmemory-policy", "volatile-ttl"] }),
    startRedisGroup(3, { args: DURABLE }),
  ]);
  replica = await startRedis({ args: [...DURABLE, "--replicaof", "127.0.0.1", String(sound.port)] });
});
afterAll(async () => {
  await Promise.all([sound, volatileLru, allkeysLru, latentEviction, replica, group].map((server) => server?.close()));
});

describe("doctor on Redis", () => {
  it("passes every check on a sound server (noeviction, AOF) and leaves no hold behind", async () => {
    const report = await checkLockBackend(sound.url);
    expectAllOk(report);
    expect(report.checks.map((row) => row.check)).toEqual([
      "redis.version",
      "redis.eviction",
      "redis.persistence",
      "redis.role",
      "redis.clock",
      "redis.permissions",
      "self-test.acquire",
      "self-test.exclusion",
      "self-test.fencing",
      "self-test.round-trip",
      "self-test.cleanup",
    ]);
    expect(String(await sound.command("GET", "{distlock:distlock-doctor:self-test}:lock"))).toMatch(/^R0{13}\d+$/);
  });

  it("fails maxmemory with volatile-lru, naming the policy, and warns of no persistence and no replica", async () => {
    const report = await checkLockBackend(volatileLru.url);
    expect(expectRow(report, "redis.eviction", "fail").found).toContain(
      "maxmemory 10 MB, maxmemory-policy volatile-lru: volatile-lru evicts keys that have a TTL",
    );
    expect(expectRow(report, "redis.persistence", "warn").change).toContain("appendonly yes");
    expect(report.summary).toMatchObject({ fail: 1, warn: 1 });
  });

  it("fails an allkeys-* policy: it evicts holds, queues and fencing counters", async () => {
    const row = expectRow(await checkLockBackend(allkeysLru.url), "redis.eviction", "fail");
    expect(row.found).toContain("allkeys-lru evicts any key");
    expect(row.change).toContain("noeviction");
  });

  it("warns of an evicting policy with no maxmemory yet", async () => {
    expect(expectRow(await checkLockBackend(latentEviction.url), "redis.eviction", "warn").found).toContain("as soon as maxmemory is set");
  });

  it("fails a URL that points at a replica, and counts the replica on its master", async () => {
    expect(expectRow(await checkLockBackend(replica.url, { selfTest: false }), "redis.role", "fail").found).toContain(`a replica of 127.0.0.1:${sound.port}`);
    expect(expectRow(await checkLockBackend(sound.url, { selfTest: false }), "redis.persistence", "ok").found).toContain("1 connected replica");
  });

  it("fails a user whose ACL forbids the scripts, and never prints its password", async () => {
    await sound.command("ACL", "SETUSER", "no-scripts", "on", ">doctor-secret-pw", "~*", "&*", "+@all", "-eval", "-evalsha");
    const url = `redis://no-scripts:doctor-secret-pw@127.0.0.1:${sound.port}`;
    const report = await checkLockBackend(url);
    const row = expectRow(report, "redis.permissions", "fail");
    expect(row.found).toContain("NOPERM");
    expect(row.change).toContain("+eval +evalsha");
    expect(JSON.stringify(report)).not.toContain("doctor-secret-pw");
  });

  it("fails a user whose ACL forbids pub/sub on the prefix's channels: waiters would only poll", async () => {
    await sound.command("ACL", "SETUSER", "no-channels", "on", ">doctor-secret-pw", "~*", "resetchannels", "+@all");
    const report = await checkLockBackend(`redis://no-channels:doctor-secret-pw@127.0.0.1:${sound.port}`, { selfTest: false });
    expect(expectRow(report, "redis.permissions", "fail").found).toMatch(/^pub\/sub on \{distlock:…\}: NOPERM/);
  });

  it("reports an unreachable server as unreachable, not as a failed check", async () => {
    const report = await checkLockBackend("redis://127.0.0.1:1");
    expect(report.reachable).toBe(false);
    expectRow(report, "redis.connect", "fail");
    expect(rowsOf(report, "self-test.acquire")).toEqual([]);
  });

  it("rejects bad options naming the field, before connecting", async () => {
    await expect(checkLockBackend("redis://127.0.0.1:1", { ttlMs: -1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "options.ttlMs" });
    await expect(checkLockBackend("redis://127.0.0.1:1", { bogus: 1 } as never)).rejects.toMatchObject({ field: "options.bogus" });
    await expect(checkLockBackend("nope://x")).rejects.toMatchObject({ code: "INVALID_CONFIG" });
  });
});

describe("doctor on Redlock", () => {
  it("passes on three independent masters", async () => {
    const report = await checkLockBackend(group.url);
    expectAllOk(report);
    expectRow(report, "redlock.independence", "ok");
    expect(expectRow(report, "redlock.clock-drift", "ok").found).toContain("driftFactor 0.01");
    expect(rowsOf(report, "redis.eviction")).toHaveLength(3);
  });

  it("fails when a node is a replica of another", async () => {
    const [first] = group.servers as [RedisServer];
    const url = `redlock://127.0.0.1:${sound.port},127.0.0.1:${replica.port},127.0.0.1:${first.port}`;
    const row = expectRow(await checkLockBackend(url, { selfTest: false }), "redlock.independence", "fail");
    expect(row.found).toContain(`127.0.0.1:${replica.port} is a replica of 127.0.0.1:${sound.port}`);
  });

  it("fails when one server is named twice", async () => {
    const [first, second] = group.servers as [RedisServer, RedisServer];
    const url = `redlock://127.0.0.1:${first.port},localhost:${first.port},127.0.0.1:${second.port}`;
    const row = expectRow(await checkLockBackend(url, { selfTest: false }), "redlock.independence", "fail");
    expect(row.found).toContain(`127.0.0.1:${first.port} and localhost:${first.port} are one server`);
  });

  it("warns when a node is down but a quorum answers, and names the missing one", async () => {
    const [first, second] = group.servers as [RedisServer, RedisServer];
    const url = `redlock://127.0.0.1:${first.port},127.0.0.1:${second.port},127.0.0.1:1`;
    const report = await checkLockBackend(url, { selfTest: false });
    expectRow(report, "redis.connect", "fail", "127.0.0.1:1");
    expect(expectRow(report, "redlock.quorum", "warn").found).toBe("2 of 3 nodes answered; a quorum is 2");
  });
});

describe("distlock doctor (the command)", () => {
  it("exits 0 on a sound server and prints one row per check", async () => {
    const result = await runCli(["doctor", "--url", sound.url]);
    expect(result.code).toBe(ExitCode.Ok);
    expect(result.stdout).toMatch(/^ok {4}redis\.eviction {2}\[127\.0\.0\.1:\d+\]$/m);
    expect(result.stdout).toMatch(/^\d+ ok, 0 warnings, 0 failed$/m);
  });

  it("exits 1 on volatile-lru and prints the --json shape", async () => {
    const result = await runCli(["doctor", "--url", volatileLru.url, "--json", "--no-self-test"]);
    expect(result.code).toBe(ExitCode.Failure);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ backend: "redis", url: volatileLru.url, reachable: true, summary: { fail: 1, warn: 1 } });
    expect(report.checks[1]).toEqual({
      check: "redis.eviction",
      target: `127.0.0.1:${volatileLru.port}`,
      status: "fail",
      found: expect.stringContaining("volatile-lru"),
      change: expect.any(String),
    });
  });

  it("exits 2 with --strict when a check only warns, 0 without it", async () => {
    const url = latentEviction.url;
    expect((await runCli(["doctor", "--url", url, "--no-self-test"])).code).toBe(ExitCode.Ok);
    expect((await runCli(["doctor", "--url", url, "--no-self-test", "--strict"])).code).toBe(ExitCode.Warning);
  });

  it("exits 69 when the backend cannot be reached, 64 on a bad flag, 78 on a bad URL", async () => {
    expect((await runCli(["doctor", "--url", "redis://127.0.0.1:1"])).code).toBe(ExitCode.Unavailable);
    expect((await runCli(["doctor", "--bogus"])).code).toBe(ExitCode.Usage);
    expect((await runCli(["doctor", "--ttl", "soon"])).code).toBe(ExitCode.Usage);
    expect((await runCli(["doctor", "extra"])).code).toBe(ExitCode.Usage);
    expect((await runCli(["doctor", "--url", "nope://x"])).code).toBe(ExitCode.Config);
  });
});
