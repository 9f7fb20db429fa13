import { randomUUID } from "node:crypto";
import { type DriverGranted, type DriverPermitRequest, PermitsMismatchError } from "@distlock/core/driver";
import type { Stat } from "node-zookeeper-client";
import { isZkError, ZK_ERROR } from "../connection/server-answers.js";
import { childrenOf, childrenWatched, createEphemeralSequential, createParents, deleteNode, readNode, statOf, writeNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import type { HeldNode } from "../leases/held-node.js";
import { encodeHoldRecord, ownerDigest, zxidOf } from "../recipe/hold-record.js";
import { protectedPrefix } from "../recipe/lock-paths.js";
import type { PermitGrants } from "./permit-grants.js";
import { decodePermits, encodePermits, LEASE_NAME, MAX_NODES_PER_GRANT, permitsInUse, type SemaphorePaths } from "./semaphore-paths.js";

/**
 * What the acquirer holding the semaphore's internal mutex does, as Curator's `InterProcessSemaphoreV2` does: check the
 * permit count, create one lease node per permit, and (when it may wait) wait until the leases number at most
 * `permits`, then the permits are its. Only the mutex holder adds leases, so a count read under the mutex only falls.
 * Resolves with the grant, or undefined when it may not wait and too few permits are free; an abort deletes its leases.
 */
export async function takePermits(
  grants: PermitGrants,
  session: ZooKeeperSession,
  paths: SemaphorePaths,
  request: DriverPermitRequest,
  queued: number,
  signal: AbortSignal | undefined,
): Promise<DriverGranted | undefined> {
  const inUse = await checkPermits(session, paths, request, queued);
  if (signal === undefined && inUse + request.count > request.permits) return undefined;
  const owner = ownerDigest(request.ownerSecret);
  const created = await createLeases(session, paths, request, owner);
  try {
    if (!(await leasesWithin(session, paths.leases, request.permits, signal))) {
      await Promise.all(created.map((path) => deleteNode(session, path, -1)));
      return undefined;
    }
    const stats = await Promise.all(created.map((path) => statOf(session, path)));
    const leaseEnd = performance.now() + request.ttlMs;
    const nodes = created.map((path, i): HeldNode => {
      const stat = stats[i] as Stat;
      return {
        key: path,
        path,
        session,
        owner,
        ownerSecret: request.ownerSecret,
        holder: request.holder,
        token: zxidOf(stat.czxid),
        version: stat.version,
        count: 1,
        leaseEnd,
      };
    });
    grants.add(request.key, owner, nodes);
    // The leases were created one after another: the first has the smallest czxid.
    const token = (nodes[0] as HeldNode).token;
    return { acquired: true, fencingToken: token, holdCount: 1, ttlMs: request.ttlMs, lost: session.lost };
  } catch (error) {
    await Promise.all(created.map((path) => deleteNode(session, path, -1).catch(() => grants.leases.stray(session, path))));
    throw error;
  }
}

/**
 * The permits in use now, after checking the permit count: one name has one count while anyone holds or waits
 * (`queued` others are in the mutex line); an idle semaphore takes the count it is opened with.
 */
export async function checkPermits(session: ZooKeeperSession, paths: SemaphorePaths, request: DriverPermitRequest, queued: number): Promise<number> {
  const [root, leases] = await Promise.all([readNode(session, paths.root), childrenOf(session, paths.leases)]);
  const stored = decodePermits(root?.data);
  if (stored === request.permits) return permitsInUse(leases);
  if (stored !== undefined && (leases.length > 0 || queued > 0)) throw new PermitsMismatchError(request.key, request.permits, stored);
  if (root !== undefined) await writeNode(session, paths.root, encodePermits(request.permits), root.stat.version);
  return permitsInUse(leases);
}

async function createLeases(session: ZooKeeperSession, paths: SemaphorePaths, request: DriverPermitRequest, owner: string): Promise<string[]> {
  const data = encodeHoldRecord({ holder: request.holder, owner, count: request.count, leaseMs: request.ttlMs });
  const weighted = request.count > MAX_NODES_PER_GRANT;
  const uuid = randomUUID();
  const prefix = `${paths.leases}/${protectedPrefix(weighted ? `${uuid}-w${request.count}` : uuid, LEASE_NAME)}`;
  const created: string[] = [];
  try {
    for (let i = 0; i < (weighted ? 1 : request.count); i++) created.push(await createLease(session, paths.leases, prefix, data));
  } catch (error) {
    await Promise.all(created.map((path) => deleteNode(session, path, -1).catch(() => undefined)));
    throw error;
  }
  return created;
}

async function createLease(session: ZooKeeperSession, leasesPath: string, prefix: string, data: Buffer): Promise<string> {
  try {
    return (await createEphemeralSequential(session, prefix, data)).path;
  } catch (error) {
    if (!isZkError(error, ZK_ERROR.noNode)) throw error;
    await createParents(session, leasesPath).catch((parentError: unknown) => {
      if (!isZkError(parentError, ZK_ERROR.nodeExists)) throw parentError;
    });
    return (await createEphemeralSequential(session, prefix, data)).path;
  }
}

/** Resolves once the leases number at most `permits` (true); without a signal it does not wait, and says whether they do. */
async function leasesWithin(session: ZooKeeperSession, leasesPath: string, permits: number, signal: AbortSignal | undefined): Promise<boolean> {
  for (;;) {
    let changed: () => void = () => {};
    const change = new Promise<void>((resolve) => {
      changed = resolve;
    });
    const inUse = permitsInUse(await childrenWatched(session, leasesPath, () => changed()));
    if (inUse <= permits || signal === undefined) return inUse <= permits;
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      const onLost = (): void => reject(session.lost.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      session.lost.addEventListener("abort", onLost, { once: true });
      if (signal.aborted) onAbort();
      void change.then(() => {
        signal.removeEventListener("abort", onAbort);
        session.lost.removeEventListener("abort", onLost);
        resolve();
      });
    });
  }
}
