import type { PermitHolderState } from "@distlock/core";
import type { SemaphoreState } from "@distlock/core/driver";
import { catchUp, childrenOf, readNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { decodeHoldRecord, foreignHolder, zxidOf } from "../recipe/hold-record.js";
import type { PermitGrants } from "./permit-grants.js";
import { decodePermits, heldLeases, leaseWeight, type SemaphorePaths, waitersIn } from "./semaphore-paths.js";

/**
 * The semaphore as the server shows it, after every change committed before the call: its held leases (not those of the
 * acquirer waiting for the count to fall) grouped by owner (a Curator lease is a holder of its own, with no
 * lease end), the permit count distlock opened it with (the leases in use where none is written), and the mutex line.
 */
export async function inspectSemaphore(session: ZooKeeperSession, paths: SemaphorePaths, name: string, grants: PermitGrants): Promise<SemaphoreState | null> {
  await catchUp(session);
  const [root, children, line] = await Promise.all([readNode(session, paths.root), childrenOf(session, paths.leases), childrenOf(session, paths.locks)]);
  const leases = heldLeases(children, decodePermits(root?.data));
  const reads = await Promise.all(
    leases.map((lease) =>
      readNode(session, `${paths.leases}/${lease}`).then((read) => ({ path: `${paths.leases}/${lease}`, weight: leaseWeight(lease), read })),
    ),
  );
  const groups = new Map<string, { holder: string; count: number; token: bigint; ttlRemainingMs: number }>();
  for (const { path, weight, read } of reads) {
    if (read === undefined) continue;
    const record = decodeHoldRecord(read.data);
    const token = zxidOf(read.stat.czxid);
    const mine = grants.byPath(path);
    const ttlRemainingMs = mine !== undefined ? Math.max(0, Math.floor(mine.leaseEnd - performance.now())) : (record?.leaseMs ?? Number.POSITIVE_INFINITY);
    const id = record?.owner ?? path;
    const group = groups.get(id);
    if (group === undefined) groups.set(id, { holder: record?.holder ?? foreignHolder(read.data), count: weight, token, ttlRemainingMs });
    else {
      group.count += weight;
      if (token < group.token) group.token = token;
      group.ttlRemainingMs = Math.min(group.ttlRemainingMs, ttlRemainingMs);
    }
  }
  if (groups.size === 0 && waitersIn(line) === 0) return null;
  const holders: PermitHolderState[] = [...groups.values()]
    .map(({ holder, count, token, ttlRemainingMs }) => ({ holder, count, fencingToken: token, ttlRemainingMs }))
    .sort((a, b) => a.ttlRemainingMs - b.ttlRemainingMs);
  const inUse = holders.reduce((sum, holder) => sum + holder.count, 0);
  return { name, permits: decodePermits(root?.data) ?? inUse, inUse, holders, waiters: waitersIn(line) };
}
