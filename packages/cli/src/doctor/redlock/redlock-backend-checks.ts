import type { LockUrl } from "@distlock/core/driver";
import { DEFAULT_REDLOCK_LOCK_OPTIONS } from "@distlock/redlock";
import type { ResolvedCheckOptions } from "../doctor-options.js";
import type { CheckList } from "../doctor-report.js";
import { checkRedisMaster } from "../redis/redis-master-checks.js";
import { redisAddress } from "../redis/redis-node.js";
import type { RedisServerFacts } from "../redis/redis-server-facts.js";
import { checkClockSpread, checkIndependence } from "./redlock-node-checks.js";

/** Every node's Redis checks, then what Redlock itself assumes: independent nodes and clocks that agree. False when no node answered. */
export async function checkRedlockBackend(url: LockUrl, options: ResolvedCheckOptions, checks: CheckList): Promise<boolean> {
  const prefix = url.params.get("prefix") ?? DEFAULT_REDLOCK_LOCK_OPTIONS.prefix;
  const nodes: RedisServerFacts[] = [];
  for (const host of url.hosts) {
    const { name, ...address } = redisAddress(host);
    const facts = await checkRedisMaster(url, address, name, prefix, checks);
    if (facts !== undefined) nodes.push(facts);
  }
  const quorum = Math.floor(url.hosts.length / 2) + 1;
  if (nodes.length < url.hosts.length)
    checks.add(
      "redlock.quorum",
      nodes.length >= quorum ? "warn" : "fail",
      `${nodes.length} of ${url.hosts.length} nodes answered; a quorum is ${quorum}`,
      "bring the missing nodes back",
    );
  else if (url.hosts.length < 3)
    checks.add("redlock.quorum", "warn", `${url.hosts.length} node(s): one lost node stops every lock`, "use 3 or 5 independent masters");
  else checks.ok("redlock.quorum", `${nodes.length} of ${url.hosts.length} nodes answered; a quorum is ${quorum}`);
  if (nodes.length === 0) return false;
  checkIndependence(nodes, checks);
  const driftFactor = Number(url.params.get("driftFactor") ?? DEFAULT_REDLOCK_LOCK_OPTIONS.driftFactor);
  const driftFloorMs = Number(url.params.get("driftFloorMs") ?? DEFAULT_REDLOCK_LOCK_OPTIONS.driftFloorMs);
  checkClockSpread(nodes, options.ttlMs * driftFactor + driftFloorMs, driftFactor, options.ttlMs, checks);
  return true;
}
