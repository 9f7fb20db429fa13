import type { LockState } from "@distlock/core";
import { firstHeld } from "@distlock/core/internal";
import type { Cluster, Redis } from "ioredis";
import type { RedisCalls } from "../connection/redis-calls.js";
import type { RedisKeyLayout } from "./redis-key-layout.js";
import { scanNames } from "./scan-names.js";

/**
 * SCAN (MATCH on the stored holds under `prefix`, escaped) of the server, or of every master of a Cluster; then the
 * first `limit` keys, each read atomically by `inspect`. A key taken during the walk may be missed.
 */
export async function listHeld(
  client: Redis | Cluster,
  calls: RedisCalls,
  layout: RedisKeyLayout,
  prefix: string,
  limit: number,
  inspect: (key: string) => Promise<LockState | null>,
): Promise<LockState[]> {
  const pattern = layout.lockKeyPattern(prefix);
  const servers = await scanTargets(client, calls);
  const found = await Promise.all(
    servers.map((server) => scanNames((cursor, match, count) => calls.bound("list", server.scan(cursor, "MATCH", match, "COUNT", count)), pattern)),
  );
  return firstHeld(layout.keysOfLockKeys(found), limit, inspect);
}

/** The servers a SCAN must walk: the one server, or every master of a Cluster (once the cluster knows them). */
async function scanTargets(client: Redis | Cluster, calls: RedisCalls): Promise<Redis[]> {
  if (!client.isCluster) return [client as Redis];
  const cluster = client as Cluster;
  if (cluster.nodes("master").length === 0) await calls.bound("list", cluster.ping());
  return cluster.nodes("master");
}
