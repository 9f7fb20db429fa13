import type { CheckList } from "../doctor-report.js";
import type { RedisServerFacts } from "../redis/redis-server-facts.js";

/** Redlock is only as safe as its nodes are independent: one server under two names, or a replica of another node, is one vote counted twice. */
export function checkIndependence(nodes: readonly RedisServerFacts[], checks: CheckList): void {
  const problems: string[] = [];
  const byRunId = new Map<string, string[]>();
  for (const node of nodes) {
    const runId = node.info.get("run_id") ?? node.name;
    byRunId.set(runId, [...(byRunId.get(runId) ?? []), node.name]);
  }
  for (const names of byRunId.values()) if (names.length > 1) problems.push(`${names.join(" and ")} are one server (the same run_id)`);
  for (const node of nodes) {
    const master = replicaOf(node, nodes);
    if (master !== undefined) problems.push(`${node.name} is a replica of ${master}`);
  }
  if (problems.length === 0) checks.ok("redlock.independence", `${nodes.length} distinct run_ids, no node a replica of another`);
  else
    checks.add(
      "redlock.independence",
      "fail",
      `${problems.join("; ")}: a quorum can be reached on what is really fewer servers, and a failover hands a key to two holders`,
      "give Redlock independent masters: no replicaof between them, one URL entry per server",
    );
}

/** The node `node` replicates from, when it is another of `nodes` (matched by port and, where it can be, host). */
function replicaOf(node: RedisServerFacts, nodes: readonly RedisServerFacts[]): string | undefined {
  if (node.info.get("role") !== "slave") return undefined;
  const host = node.info.get("master_host") ?? "";
  const port = node.info.get("master_port") ?? "";
  const master = nodes.find((other) => other !== node && other.info.get("tcp_port") === port && sameHost(other.name, host));
  return master?.name ?? `${host}:${port} (not in the URL)`;
}

function sameHost(name: string, host: string): boolean {
  const local = (h: string) => h === "127.0.0.1" || h === "localhost" || h === "::1" || h === "[::1]";
  const nameHost = name.slice(0, name.lastIndexOf(":"));
  return nameHost === host || (local(nameHost) && local(host));
}

/** The spread of the nodes' clocks against the drift Redlock subtracts from every lease. */
export function checkClockSpread(nodes: readonly RedisServerFacts[], allowanceMs: number, driftFactor: number, ttlMs: number, checks: CheckList): void {
  const offsets = nodes.map((node) => node.clockOffsetMs);
  const spread = Math.max(...offsets) - Math.min(...offsets);
  const uncertainty = Math.max(...nodes.map((node) => node.timeRoundTripMs));
  const found = `node clocks ${spread.toFixed(1)} ms apart (±${uncertainty.toFixed(1)} ms); Redlock allows ${allowanceMs.toFixed(0)} ms of drift per ${ttlMs} ms lease (driftFactor ${driftFactor})`;
  if (spread - uncertainty > allowanceMs)
    checks.add(
      "redlock.clock-drift",
      "warn",
      `${found}: clocks this far apart are not kept in step, and may run at different rates too`,
      "run NTP on every node; or raise driftFactor",
    );
  else checks.ok("redlock.clock-drift", found);
}
