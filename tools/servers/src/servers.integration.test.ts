import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ensureServerBinaries,
  httpJson,
  mariadbGreeting,
  postgresQuery,
  redisCommand,
  type ServerProcess,
  startEtcd,
  startEtcdCluster,
  startMariadb,
  startNats,
  startNatsCluster,
  startPostgres,
  startRedis,
  startRedisCluster,
  startRedisGroup,
} from "./index.js";
import { isGone } from "./process/is-gone.test-helper.js";

const run = promisify(execFile);
const TIMEOUT = { timeout: 60_000 };

/** Path of a CLI the smoke test drives (installed with the servers). */
async function cli(name: string): Promise<string> {
  const path = (await ensureServerBinaries()).get(name);
  if (path === undefined) throw new Error(`${name} not found`);
  return path;
}

async function output(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { timeout: 10_000 });
  return stdout.trim();
}

/**
 * The lifecycle every server supports: kill() is a crash and start() comes back on the same
 * port and data dir; pause() freezes it (a raw request times out) until resume(); close()
 * leaves no process and no directory.
 */
async function exerciseLifecycle(server: ServerProcess, answers: () => Promise<unknown>, frozenRequest: () => Promise<unknown>): Promise<void> {
  const { port, dataDir } = server;
  const firstPid = server.pid as number;
  expect(server.running).toBe(true);

  await server.kill();
  expect(server.running).toBe(false);
  expect(isGone(firstPid)).toBe(true);
  await server.start();
  expect(server.port).toBe(port);
  expect(server.dataDir).toBe(dataDir);
  expect(server.pid).not.toBe(firstPid);
  await answers();

  server.pause();
  expect(server.paused).toBe(true);
  await expect(frozenRequest()).rejects.toThrow(/within|handshake/);
  server.resume();
  await answers();

  const secondPid = server.pid as number;
  await server.close();
  expect(server.running).toBe(false);
  expect(isGone(secondPid)).toBe(true);
  expect(existsSync(dataDir)).toBe(false);
}

describe("test servers", () => {
  it("redis: PING/SET/GET over redis-cli, no persistence across a crash, lifecycle", TIMEOUT, async () => {
    const redisCli = await cli("redis-cli");
    const server = await startRedis();
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const ask = (...args: string[]) => output(redisCli, ["-h", "127.0.0.1", "-p", String(server.port), ...args]);
    expect(await ask("PING")).toBe("PONG");
    expect(await ask("SET", "k", "v")).toBe("OK");
    expect(await redisCommand(server.port, ["GET", "k"])).toBe("v");
    await exerciseLifecycle(
      server,
      async () => {
        expect(await ask("PING")).toBe("PONG");
        expect(await server.command("GET", "k")).toBeNull();
      },
      () => redisCommand(server.port, ["PING"], 300),
    );
  });

  it("redis group: independent masters behind a redlock:// url", TIMEOUT, async () => {
    const group = await startRedisGroup(3);
    const ports = group.servers.map((server) => server.port);
    expect(new Set(ports).size).toBe(3);
    expect(group.url).toBe(`redlock://${ports.map((port) => `127.0.0.1:${port}`).join(",")}`);
    await group.servers[0]?.command("SET", "only-here", "1");
    expect(await Promise.all(group.servers.map((server) => server.command("EXISTS", "only-here")))).toEqual([1, 0, 0]);
    const pids = group.servers.map((server) => server.pid as number);
    await group.close();
    expect(pids.every(isGone)).toBe(true);
  });

  it("redis cluster: 3 masters cover all slots; a crashed node rejoins", TIMEOUT, async () => {
    const redisCli = await cli("redis-cli");
    const cluster = await startRedisCluster({ masters: 3 });
    const [first, second] = cluster.nodes;
    if (first === undefined || second === undefined) throw new Error("expected 3 nodes");
    expect(cluster.url).toMatch(/^redis\+cluster:\/\/127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/);
    const viaCluster = (...args: string[]) => output(redisCli, ["-c", "-h", "127.0.0.1", "-p", String(first.port), ...args]);
    for (const key of ["a", "b", "c", "d"]) expect(await viaCluster("SET", key, key)).toBe("OK");
    expect(await viaCluster("GET", "d")).toBe("d");
    const info = await second.command("CLUSTER", "INFO");
    expect(info).toContain("cluster_state:ok");
    expect(info).toContain("cluster_slots_assigned:16384");

    await second.kill();
    await second.start(); // waits for cluster_state:ok on the restarted node
    await cluster.waitUntilHealthy();
    expect(await viaCluster("SET", "after-restart", "1")).toBe("OK");

    const pids = cluster.nodes.map((node) => node.pid as number);
    await cluster.close();
    expect(pids.every(isGone)).toBe(true);
    expect(cluster.nodes.some((node) => existsSync(node.dataDir))).toBe(false);
  });

  it("etcd: etcdctl put/get, data survives a crash, lifecycle", TIMEOUT, async () => {
    const etcdctl = await cli("etcdctl");
    const server = await startEtcd();
    expect(server.url).toBe(`etcd://127.0.0.1:${server.port}`);
    expect(server.endpoints).toEqual([`http://127.0.0.1:${server.port}`]);
    const ctl = (...args: string[]) => output(etcdctl, ["--endpoints", server.endpoint, ...args]);
    expect(await ctl("put", "k", "v")).toBe("OK");
    await exerciseLifecycle(
      server,
      async () => expect(await ctl("get", "k", "--print-value-only")).toBe("v"),
      () => httpJson(`${server.endpoint}/health`, { timeoutMs: 300 }),
    );
  });

  it("etcd cluster: 3 members, a new leader after the leader crashes", TIMEOUT, async () => {
    const etcdctl = await cli("etcdctl");
    const cluster = await startEtcdCluster(3);
    expect(cluster.members).toHaveLength(3);
    expect(cluster.url).toBe(`etcd://${cluster.members.map((m) => `127.0.0.1:${m.port}`).join(",")}`);
    const ctl = (endpoints: readonly string[], ...args: string[]) => output(etcdctl, ["--endpoints", endpoints.join(","), ...args]);
    expect(await ctl(cluster.endpoints, "put", "k", "v")).toBe("OK");

    const oldLeader = await cluster.leader();
    await oldLeader.kill();
    const started = performance.now();
    const newLeader = await cluster.leader();
    const failoverMs = performance.now() - started;
    expect(newLeader).not.toBe(oldLeader);
    expect(failoverMs).toBeLessThan(5_000);
    expect(await ctl([newLeader.endpoint], "put", "k", "v2")).toBe("OK");

    await oldLeader.start();
    expect(await ctl([oldLeader.endpoint], "get", "k", "--print-value-only")).toBe("v2");

    const pids = cluster.members.map((member) => member.pid as number);
    await cluster.close();
    expect(pids.every(isGone)).toBe(true);
  });

  it("nats: JetStream on 127.0.0.1 with its store in the data dir, lifecycle", TIMEOUT, async () => {
    const server = await startNats();
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    const monitor = `http://127.0.0.1:${server.monitorPort}`;
    const jsz = (await httpJson(`${monitor}/jsz`)) as { config?: { store_dir?: string } };
    expect(jsz.config?.store_dir?.startsWith(server.dataDir)).toBe(true);
    await exerciseLifecycle(
      server,
      async () => expect(await httpJson(`${monitor}/healthz`)).toMatchObject({ status: "ok" }),
      () => httpJson(`${monitor}/healthz`, { timeoutMs: 300 }),
    );
  });

  it("nats cluster: 3 JetStream servers routed to each other, one meta leader", TIMEOUT, async () => {
    const cluster = await startNatsCluster(3);
    expect(cluster.url).toBe(`nats://${cluster.servers.map((s) => `127.0.0.1:${s.port}`).join(",")}`);
    const metaViews = () =>
      Promise.all(
        cluster.servers.map(async (server) => {
          const jsz = (await httpJson(`http://127.0.0.1:${server.monitorPort}/jsz`)) as { meta_cluster?: { leader?: string; cluster_size?: number } };
          return jsz.meta_cluster;
        }),
      );
    // A server may still count 2 peers just after the leader is elected (CI, 2026-11-30): wait until all agree.
    await expect
      .poll(
        async () => {
          const seen = await metaViews();
          return seen.every((view) => view?.cluster_size === 3 && view.leader === seen[0]?.leader);
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    const views = await metaViews();
    for (const view of views) expect(view).toMatchObject({ cluster_size: 3, leader: views[0]?.leader });
    expect(cluster.servers.map((server) => server.serverName)).toContain(views[0]?.leader);
    const pids = cluster.servers.map((server) => server.pid as number);
    await cluster.close();
    expect(pids.every(isGone)).toBe(true);
  });

  it("postgres: psql select 1, committed rows survive a crash, lifecycle", TIMEOUT, async () => {
    const psql = await cli("psql");
    const server = await startPostgres();
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    const sql = (statement: string, database = "postgres") =>
      output(psql, ["-h", "127.0.0.1", "-p", String(server.port), "-U", "postgres", "-d", database, "-Atc", statement]);
    expect(await sql("select 1")).toBe("1");
    const url = await server.createDatabase("smoke");
    expect(url).toBe(`postgres://postgres@127.0.0.1:${server.port}/smoke`);
    await sql("create table t (v text); insert into t values ('kept')", "smoke");
    await exerciseLifecycle(
      server,
      async () => expect(await server.query("select v from t", "smoke")).toEqual([["kept"]]),
      () => postgresQuery("select 1", { port: server.port, timeoutMs: 300 }),
    );
  });

  it("mariadb: real users, committed rows survive a crash, lifecycle", TIMEOUT, async () => {
    const mariadb = await cli("mariadb");
    const server = await startMariadb();
    expect(server.url).toBe(`mysql://root@127.0.0.1:${server.port}/test`);
    const sql = (user: string[], statement: string) =>
      output(mariadb, ["--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", String(server.port), ...user, "-BN", "-e", statement, "test"]);
    expect(await sql(["-u", "root"], "select 1")).toBe("1");
    expect(await sql(["-u", "distlock", "-pdistlock"], "select current_user()")).toBe("distlock@%");
    await expect(sql(["-u", "distlock", "-pwrong"], "select 1")).rejects.toThrow(/Access denied/);
    await sql(["-u", "root"], "create table t (v varchar(10)) engine=innodb; insert into t values ('kept')");
    await exerciseLifecycle(
      server,
      async () => expect(await server.execute("select v from t")).toBe("kept\n"),
      () => mariadbGreeting(server.port, 300),
    );
  });
});
