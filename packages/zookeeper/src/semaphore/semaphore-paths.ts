import { ATTEMPT_TAG, encodeSegment, LOCK_NAME } from "../recipe/lock-paths.js";

/** Curator's `InterProcessSemaphoreV2` lease name: leases are `<S>/leases/_c_<uuid>-lease-<sequence>`. */
export const LEASE_NAME = "lease-";

/**
 * A grant of up to this many permits is that many lease nodes, exactly as Curator counts leases; a larger one (a
 * read-write lock's writer takes a million) is one node whose name carries its weight: `_c_<uuid>-w<count>-lease-<seq>`.
 */
export const MAX_NODES_PER_GRANT = 16;

/** The permits a lease node stands for: its weight, or 1 (every Curator lease). */
export function leaseWeight(name: string): number {
  const weight = /-w(\d+)-lease-\d+$/.exec(name)?.[1];
  return weight === undefined ? 1 : Number(weight);
}

/** The permits the lease nodes `names` stand for together. */
export function permitsInUse(names: readonly string[]): number {
  return names.reduce((sum, name) => sum + leaseWeight(name), 0);
}

/** The nodes of the mutex line that are waiters: all but attempts (the mutex holder waits for leases too). */
export function waitersIn(line: readonly string[]): number {
  return line.filter((name) => !name.includes(`-${ATTEMPT_TAG}-${LOCK_NAME}`)).length;
}

/** The paths of semaphore `name`, as Curator's `InterProcessSemaphoreV2` lays out `new InterProcessSemaphoreV2(client, S, n)`. */
export interface SemaphorePaths {
  /** `<chroot>/semaphores/<name>`; its data holds the permit count distlock opened it with. */
  readonly root: string;
  /** The internal mutex serializing acquirers: its line is the semaphore's FIFO line of waiters. */
  readonly locks: string;
  /** One node per permit held. */
  readonly leases: string;
}

export function semaphorePaths(chroot: string, name: string): SemaphorePaths {
  const root = `${chroot}/semaphores/${encodeSegment(name)}`;
  return { root, locks: `${root}/locks`, leases: `${root}/leases` };
}

/** The permit count in the semaphore root's data, or undefined (none written, or written by someone else). */
export function decodePermits(data: Buffer | undefined): number | undefined {
  try {
    const parsed = JSON.parse(data?.toString("utf8") ?? "") as { distlock?: unknown; permits?: unknown };
    return parsed.distlock === 1 && typeof parsed.permits === "number" ? parsed.permits : undefined;
  } catch {
    return undefined;
  }
}

export function encodePermits(permits: number): Buffer {
  return Buffer.from(JSON.stringify({ distlock: 1, permits }));
}
