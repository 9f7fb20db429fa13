import type { LockUrl } from "@distlock/core/driver";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import type { CheckList } from "../doctor-report.js";
import { checkRedisCluster } from "./redis-cluster-checks.js";
import { checkRedisMaster } from "./redis-master-checks.js";
import { redisAddress } from "./redis-node.js";
import { checkRedisSentinel } from "./redis-sentinel-checks.js";

/** `redis://`, `rediss://`, `redis+sentinel://` and `redis+cluster://`: the server checks on every master the locks live on. Resolves false when none could be reached. */
export async function checkRedisBackend(url: LockUrl, checks: CheckList): Promise<boolean> {
  const prefix = url.params.get("prefix") ?? DEFAULT_REDIS_LOCK_OPTIONS.prefix;
  if (url.variant === "cluster") return checkRedisCluster(url, prefix, checks);
  if (url.variant === "sentinel") return checkRedisSentinel(url, prefix, checks);
  const [host] = url.hosts;
  const { name, ...address } = redisAddress(host ?? { host: "127.0.0.1", port: undefined });
  return (await checkRedisMaster(url, { ...address, db: Number(url.path || 0) }, name, prefix, checks)) !== undefined;
}
