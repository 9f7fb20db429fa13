import { CLOCK_SKEW_WARN_MS, formatOffset } from "../clock-offset.js";
import type { CheckList } from "../doctor-report.js";
import type { SlotRanges } from "./redis-permission-checks.js";
import type { RedisServerFacts } from "./redis-server-facts.js";

/** The oldest Redis the scripts run on: `SET … KEEPTTL` (6.0); `TIME` inside a writing script needs 5.0. */
const MIN_VERSION: readonly [number, number] = [6, 0];

/** The checks every Redis server that holds locks must pass: version, eviction, persistence, role, clock. */
export function checkRedisServer(facts: RedisServerFacts, checks: CheckList, options: RedisServerCheckOptions = {}): void {
  checkVersion(facts, checks);
  checkEviction(facts, checks);
  checkPersistence(facts, checks, options.replicasElsewhere ?? false);
  checkRole(facts, checks);
  checkClock(facts, checks);
  if (options.minReplicasToWrite) checkMinReplicas(facts, checks);
}

/** What the server checks know of the deployment around a server. */
export interface RedisServerCheckOptions {
  /** The server has replicas that a failover promotes (Sentinel, Cluster): no persistence is then no warning. */
  readonly replicasElsewhere?: boolean;
  /** Check `min-replicas-to-write` (a Sentinel master). */
  readonly minReplicasToWrite?: boolean;
  /** The slots a Cluster master serves: the permission probe uses a key in one of them. */
  readonly slots?: SlotRanges;
}

function checkVersion({ info, name }: RedisServerFacts, checks: CheckList): void {
  const version = info.get("redis_version") ?? "unknown";
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const flavour = info.has("valkey_version") ? ` (Valkey ${info.get("valkey_version")})` : "";
  if (major > MIN_VERSION[0] || (major === MIN_VERSION[0] && minor >= MIN_VERSION[1])) checks.ok("redis.version", `Redis ${version}${flavour}`, name);
  else
    checks.add(
      "redis.version",
      "fail",
      `Redis ${version}: the scripts use SET … KEEPTTL (6.0) and TIME in writing scripts (5.0)`,
      `upgrade to Redis ${MIN_VERSION.join(".")} or later`,
      name,
    );
}

function checkEviction({ info, name }: RedisServerFacts, checks: CheckList): void {
  const maxmemory = Number(info.get("maxmemory") ?? 0);
  const policy = info.get("maxmemory_policy") ?? "noeviction";
  const limit = maxmemory > 0 ? `maxmemory ${formatBytes(maxmemory)}` : "maxmemory 0 (no limit)";
  const evicts = policy.startsWith("volatile-")
    ? "evicts keys that have a TTL under memory pressure: semaphore leases and wait queues have one"
    : policy.startsWith("allkeys-")
      ? "evicts any key under memory pressure: lock records (with their fencing tokens), semaphore leases and wait queues"
      : undefined;
  if (evicts === undefined) {
    checks.ok("redis.eviction", `${limit}, maxmemory-policy ${policy}: a full server refuses writes rather than drop a lock`, name);
    return;
  }
  const change = "set maxmemory-policy noeviction (or keep locks on a Redis of their own with noeviction)";
  if (maxmemory > 0)
    checks.add(
      "redis.eviction",
      "fail",
      `${limit}, maxmemory-policy ${policy}: ${policy} ${evicts}, so a lock can vanish while its holder works`,
      change,
      name,
    );
  else
    checks.add(
      "redis.eviction",
      "warn",
      `${limit}, maxmemory-policy ${policy}: nothing is evicted today, but ${policy} ${evicts} as soon as maxmemory is set`,
      change,
      name,
    );
}

function checkPersistence({ info, saveConfig, name }: RedisServerFacts, checks: CheckList, replicasElsewhere: boolean): void {
  const aof = info.get("aof_enabled") === "1";
  const rdb = saveConfig === undefined ? undefined : saveConfig.trim() !== "";
  const replicas = Number(info.get("connected_slaves") ?? 0);
  const kinds = [aof ? "AOF" : undefined, rdb ? `RDB (save ${saveConfig})` : undefined].filter((kind) => kind !== undefined);
  const persistence = kinds.length > 0 ? kinds.join(" and ") : rdb === undefined && !aof ? "no AOF; RDB unknown (CONFIG GET save not permitted)" : "none";
  const found = `persistence: ${persistence}; ${replicas} connected replica${replicas === 1 ? "" : "s"}`;
  if (kinds.length === 0 && rdb !== undefined && replicas === 0 && !replicasElsewhere) {
    checks.add(
      "redis.persistence",
      "warn",
      `${found}: a restart empties the server, so every held lock is free to another client while its holder still works until its watchdog notices`,
      "turn on appendonly yes (appendfsync everysec or always), or add a replica and use Sentinel with waitForReplicas",
      name,
    );
  } else checks.ok("redis.persistence", found, name);
}

function checkRole({ info, name }: RedisServerFacts, checks: CheckList): void {
  const role = info.get("role") ?? "unknown";
  if (role !== "slave") {
    checks.ok("redis.role", role, name);
    return;
  }
  const master = `${info.get("master_host")}:${info.get("master_port")}`;
  checks.add(
    "redis.role",
    "fail",
    `a replica of ${master}: locks written here are not the master's, and a read-only replica refuses them`,
    "point the URL at the master (or use redis+sentinel:// to follow failovers)",
    name,
  );
}

function checkClock({ clockOffsetMs, timeRoundTripMs, name }: RedisServerFacts, checks: CheckList): void {
  const found = `server TIME is ${formatOffset(clockOffsetMs)} this host's clock (±${(timeRoundTripMs / 2).toFixed(1)} ms)`;
  if (Math.abs(clockOffsetMs) > CLOCK_SKEW_WARN_MS)
    checks.add(
      "redis.clock",
      "warn",
      found,
      "run NTP (chrony, systemd-timesyncd) on the server and this host; leases do not depend on it, but logs and drift checks do",
      name,
    );
  else checks.ok("redis.clock", found, name);
}

function checkMinReplicas({ info, name }: RedisServerFacts, checks: CheckList): void {
  // INFO shows min_slaves_good_slaves only while min-replicas-to-write is set.
  const good = info.get("min_slaves_good_slaves");
  if (good !== undefined) checks.ok("redis.min-replicas-to-write", `min-replicas-to-write is set; ${good} replicas within the lag limit`, name);
  else
    checks.add(
      "redis.min-replicas-to-write",
      "warn",
      "min-replicas-to-write is 0: a master cut off from its replicas keeps granting locks that the failover on the other side forgets",
      "set min-replicas-to-write 1 and min-replicas-max-lag 10 on the master",
      name,
    );
}

function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB` : `${bytes} B`;
}
