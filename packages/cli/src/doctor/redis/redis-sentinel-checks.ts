import type { LockUrl } from "@distlock/core/driver";
import type { Redis } from "ioredis";
import { describeError } from "../doctor-errors.js";
import type { CheckList } from "../doctor-report.js";
import { checkRedisMaster } from "./redis-master-checks.js";
import { connectRedisNode, redisAddress } from "./redis-node.js";

const DEFAULT_SENTINEL_PORT = 26379;
/** Sentinels a failover vote should have: with fewer than three, one lost Sentinel can stall or split the vote. */
const MIN_SENTINELS = 3;

/** Sentinel's view of the master (replicas, Sentinels), the master's own server checks, and the replication settings locks rely on. */
export async function checkRedisSentinel(url: LockUrl, prefix: string, checks: CheckList): Promise<boolean> {
  const master = url.path;
  for (const host of url.hosts) {
    const { name, ...address } = redisAddress({ host: host.host, port: host.port ?? DEFAULT_SENTINEL_PORT });
    const sentinel = await connectSentinel(url, address).catch((error: unknown) => {
      checks.add("redis.connect", "warn", `Sentinel did not answer: ${describeError(error)}`, "remove dead Sentinels from the URL", name);
      return undefined;
    });
    if (sentinel === undefined) continue;
    let view: SentinelView;
    try {
      view = await readSentinelView(sentinel, master);
    } catch (error) {
      checks.add(
        "redis.sentinel",
        "fail",
        `Sentinel does not know the master "${master}": ${describeError(error)}`,
        "name the monitored master in the URL path",
        name,
      );
      return false;
    } finally {
      sentinel.disconnect();
    }
    judgeSentinelView(view, url, name, checks);
    const masterName = redisAddress(view.master).name;
    const facts = await checkRedisMaster(url, view.master, masterName, prefix, checks, {
      replicasElsewhere: view.healthyReplicas > 0,
      minReplicasToWrite: true,
    });
    return facts !== undefined;
  }
  checks.add("redis.connect", "fail", "no Sentinel of the URL answered", "check the Sentinel hosts and ports of the URL");
  return false;
}

interface SentinelView {
  readonly master: { host: string; port: number };
  readonly replicas: number;
  readonly healthyReplicas: number;
  readonly sentinels: number;
}

/** A connection to a Sentinel: without the URL's credentials, which are the master's. */
function connectSentinel(url: LockUrl, address: { host: string; port: number }): Promise<Redis> {
  return connectRedisNode({ ...url, username: undefined, password: undefined }, address.host, address.port);
}

async function readSentinelView(sentinel: Redis, master: string): Promise<SentinelView> {
  const [host, port] = ((await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", master)) as [string, string] | null) ?? [];
  if (host === undefined || port === undefined) throw new Error("no such master");
  const replicas = ((await sentinel.call("SENTINEL", "REPLICAS", master)) as string[][]).map(fieldsOf);
  const others = (await sentinel.call("SENTINEL", "SENTINELS", master)) as unknown[];
  const healthy = replicas.filter((r) => !/s_down|o_down|disconnected/.test(r.get("flags") ?? "") && r.get("master-link-status") === "ok");
  return { master: { host, port: Number(port) }, replicas: replicas.length, healthyReplicas: healthy.length, sentinels: others.length + 1 };
}

function judgeSentinelView(view: SentinelView, url: LockUrl, name: string, checks: CheckList): void {
  const wait = Number(url.params.get("waitForReplicas") ?? 0);
  const found = `master ${redisAddress(view.master).name}, ${view.healthyReplicas} of ${view.replicas} replicas in sync, ${view.sentinels} Sentinels`;
  if (view.healthyReplicas === 0)
    checks.add("redis.sentinel", "warn", `${found}: a failover has no replica to promote`, "add a replica (replicaof) that Sentinel monitors", name);
  else if (view.sentinels < MIN_SENTINELS)
    checks.add(
      "redis.sentinel",
      "warn",
      `${found}: one lost Sentinel can stall a failover vote`,
      `run at least ${MIN_SENTINELS} Sentinels on separate machines`,
      name,
    );
  else checks.ok("redis.sentinel", found, name);
  if (wait === 0)
    checks.add(
      "redis.wait-for-replicas",
      "warn",
      "waitForReplicas is 0: a lock granted just before a failover may never reach the replica that is promoted, and a second client can take it",
      "add ?waitForReplicas=1 to the URL (each fresh acquisition waits for a replica's acknowledgement)",
    );
  else if (wait > view.healthyReplicas)
    checks.add(
      "redis.wait-for-replicas",
      "fail",
      `waitForReplicas is ${wait} but only ${view.healthyReplicas} replicas are in sync: acquisitions wait for acknowledgements that cannot come`,
      `lower waitForReplicas to at most ${view.healthyReplicas} or add replicas`,
    );
  else checks.ok("redis.wait-for-replicas", `waitForReplicas is ${wait} (${view.healthyReplicas} replicas in sync)`);
}

function fieldsOf(flat: string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string);
  return fields;
}
