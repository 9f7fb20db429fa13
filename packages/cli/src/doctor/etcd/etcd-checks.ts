import type { LockUrl } from "@distlock/core/driver";
import { Etcd3, type IStatusResponse } from "etcd3";
import { describeError } from "../doctor-errors.js";
import type { ResolvedCheckOptions } from "../doctor-options.js";
import type { CheckList } from "../doctor-report.js";

const DEFAULT_CLIENT_PORT = 2379;
/** Bounds every call the checks make. */
const ETCD_TIMEOUT_MS = 5_000;
/** etcd before 3.4 is out of support and lacks fixes the lease code relies on. */
const MIN_VERSION: readonly [number, number] = [3, 4];

/** etcd: each endpoint's status (health, leader, version), the member count, and the shortest lease the cluster grants. False when no endpoint answered. */
export async function checkEtcdBackend(url: LockUrl, options: ResolvedCheckOptions, checks: CheckList): Promise<boolean> {
  const endpoints = endpointsOf(url);
  const statuses: { endpoint: string; status: IStatusResponse }[] = [];
  for (const endpoint of endpoints) {
    const client = clientFor(url, [endpoint]);
    try {
      statuses.push({ endpoint, status: await client.maintenance.status() });
    } catch (error) {
      checks.add("etcd.health", "fail", `no answer: ${describeError(error)}`, "check that etcd runs there, or remove the endpoint from the URL", endpoint);
    } finally {
      client.close();
    }
  }
  if (statuses.length === 0) return false;
  const client = clientFor(
    url,
    statuses.map((s) => s.endpoint),
  );
  try {
    judgeStatuses(statuses, checks);
    await checkMembers(client, checks);
    await checkMinimumLease(client, options.ttlMs, checks);
    return true;
  } finally {
    client.close();
  }
}

function endpointsOf(url: LockUrl): string[] {
  const scheme = url.variant === "tls" ? "https" : "http";
  return url.hosts.map(({ host, port }) => `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_CLIENT_PORT}`);
}

function clientFor(url: LockUrl, hosts: string[]): Etcd3 {
  return new Etcd3({
    hosts,
    dialTimeout: ETCD_TIMEOUT_MS,
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + ETCD_TIMEOUT_MS }),
    ...(url.username === undefined ? {} : { auth: { username: url.username, password: url.password ?? "" } }),
  });
}

function judgeStatuses(statuses: readonly { endpoint: string; status: IStatusResponse }[], checks: CheckList): void {
  const leaders = new Set(statuses.map(({ status }) => status.leader));
  for (const { endpoint, status } of statuses) {
    const [major = 0, minor = 0] = status.version.split(".").map(Number);
    const current = major > MIN_VERSION[0] || (major === MIN_VERSION[0] && minor >= MIN_VERSION[1]);
    const errors = (status as IStatusResponse & { errors?: string[] }).errors ?? [];
    const found = `etcd ${status.version}, raft term ${status.raftTerm}, leader ${status.leader === "0" ? "none" : status.leader}, db ${Math.round(Number(status.dbSize) / 1024)} KB`;
    if (status.leader === "0" || errors.length > 0)
      checks.add(
        "etcd.health",
        "fail",
        `${found}${errors.length > 0 ? `; errors: ${errors.join("; ")}` : ""}: without a leader no lease is granted or kept`,
        "restore a quorum of members",
        endpoint,
      );
    else if (!current)
      checks.add("etcd.health", "warn", `${found}: older than ${MIN_VERSION.join(".")}`, `upgrade etcd to ${MIN_VERSION.join(".")} or later`, endpoint);
    else checks.ok("etcd.health", found, endpoint);
  }
  if (leaders.size > 1)
    checks.add(
      "etcd.leader",
      "fail",
      `endpoints name different leaders (${[...leaders].join(", ")}): they are not one cluster, or it is split`,
      "point the URL at the members of one cluster",
    );
  else checks.ok("etcd.leader", `every endpoint names leader ${[...leaders][0]}`);
}

async function checkMembers(client: Etcd3, checks: CheckList): Promise<void> {
  const { members } = await client.cluster.memberList({});
  const voting = members.filter((member) => !(member as { isLearner?: boolean }).isLearner).length;
  const found = `${voting} voting member${voting === 1 ? "" : "s"} (quorum ${Math.floor(voting / 2) + 1}, survives ${Math.floor((voting - 1) / 2)} lost)`;
  if (voting === 1) checks.add("etcd.members", "warn", `${found}: one lost member stops every lock`, "run 3 or 5 members");
  else if (voting % 2 === 0)
    checks.add(
      "etcd.members",
      "warn",
      `${found}: an even count tolerates no more failures than one member fewer`,
      `run ${voting + 1} (or ${voting - 1}) members`,
    );
  else checks.ok("etcd.members", found);
}

/** etcd raises a lease's TTL to its minimum (about 1.5 election timeouts): a lease shorter than that lasts longer than asked. */
async function checkMinimumLease(client: Etcd3, ttlMs: number, checks: CheckList): Promise<void> {
  const grant = await client.leaseClient.leaseGrant({ TTL: 1, ID: 0 });
  await client.leaseClient.leaseRevoke({ ID: grant.ID }).catch(() => undefined);
  const minimumMs = Number(grant.TTL) * 1000;
  const found = `a 1 s lease was granted as ${grant.TTL} s; leases are whole seconds, the lease in use is ${ttlMs} ms`;
  if (minimumMs > ttlMs)
    checks.add(
      "etcd.lease",
      "warn",
      `${found}: a crashed holder keeps the key ${minimumMs} ms, not ${ttlMs} ms`,
      `use a lease of at least ${minimumMs} ms, or lower etcd's --election-timeout`,
    );
  else checks.ok("etcd.lease", found);
}
