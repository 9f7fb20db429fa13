import type { LockUrl } from "@distlock/core/driver";
import { describeError } from "../doctor-errors.js";
import type { CheckList } from "../doctor-report.js";
import { checkRedisMaster } from "./redis-master-checks.js";
import { connectRedisNode, parseInfo, redisAddress } from "./redis-node.js";
import type { SlotRanges } from "./redis-permission-checks.js";

/** Hash slots of a Redis Cluster. */
const CLUSTER_SLOTS = 16_384;

/** One master of `CLUSTER NODES`: its address, and whether a replica follows it. */
interface ClusterMaster {
  readonly host: string;
  readonly port: number;
  readonly hasReplica: boolean;
  readonly slots: SlotRanges;
}

/** Cluster state and slot coverage from the first node that answers, then the server checks on every master. */
export async function checkRedisCluster(url: LockUrl, prefix: string, checks: CheckList): Promise<boolean> {
  for (const host of url.hosts) {
    const { name, ...address } = redisAddress(host);
    const client = await connectRedisNode(url, address.host, address.port).catch((error: unknown) => {
      checks.add("redis.connect", "warn", `seed node did not answer: ${describeError(error)}`, "remove dead seed nodes from the URL", name);
      return undefined;
    });
    if (client === undefined) continue;
    let masters: ClusterMaster[];
    try {
      const info = parseInfo(String(await client.call("CLUSTER", "INFO")));
      checkClusterState(info, name, checks);
      masters = parseMasters(String(await client.call("CLUSTER", "NODES")), address.host);
    } finally {
      client.disconnect();
    }
    let reached = false;
    for (const master of masters) {
      const target = redisAddress(master).name;
      reached =
        (await checkRedisMaster(url, master, target, prefix, checks, { replicasElsewhere: master.hasReplica, slots: master.slots })) !== undefined || reached;
    }
    return reached;
  }
  checks.add("redis.connect", "fail", "no seed node of the cluster answered", "check the hosts, ports and credentials of the URL");
  return false;
}

function checkClusterState(info: ReadonlyMap<string, string>, name: string, checks: CheckList): void {
  const state = info.get("cluster_state") ?? "unknown";
  const assigned = Number(info.get("cluster_slots_assigned") ?? 0);
  const healthy = Number(info.get("cluster_slots_ok") ?? 0);
  const found = `cluster_state ${state}, ${assigned} of ${CLUSTER_SLOTS} slots assigned, ${healthy} served by a reachable master, ${info.get("cluster_known_nodes")} nodes`;
  if (state === "ok" && assigned === CLUSTER_SLOTS && healthy === CLUSTER_SLOTS) checks.ok("redis.cluster", found, name);
  else
    checks.add(
      "redis.cluster",
      "fail",
      `${found}: keys in uncovered slots cannot be locked`,
      "assign every slot (redis-cli --cluster fix) and bring failed masters back",
      name,
    );
}

/** "0-5460" and "5461" fields of a CLUSTER NODES row; importing/migrating markers ("[...]") are skipped. */
function slotRanges(fields: readonly string[]): SlotRanges {
  return fields
    .filter((field) => /^\d+(-\d+)?$/.test(field))
    .map((field) => {
      const [from, to = from] = field.split("-").map(Number) as [number, number?];
      return [from, to] as const;
    });
}

/** Masters of a `CLUSTER NODES` reply; `seedHost` stands in for a node announcing an empty address. */
function parseMasters(nodes: string, seedHost: string): ClusterMaster[] {
  const rows = nodes
    .trim()
    .split("\n")
    .map((line) => line.split(" "));
  const followed = new Set(rows.filter((row) => row[2]?.includes("slave") && row[3] !== "-").map((row) => row[3]));
  return rows
    .filter((row) => row[2]?.includes("master") && !row[2].includes("fail"))
    .map((row) => {
      const address = (row[1] ?? "").split("@")[0] ?? "";
      const colon = address.lastIndexOf(":");
      const host = address.slice(0, colon);
      return { host: host === "" ? seedHost : host, port: Number(address.slice(colon + 1)), hasReplica: followed.has(row[0]), slots: slotRanges(row.slice(8)) };
    });
}
