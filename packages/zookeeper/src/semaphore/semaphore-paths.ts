import { ATTEMPT_TAG, encodeSegment, LOCK_NAME, sortLine } from "../recipe/lock-paths.js";

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

/**
 * The lease nodes that hold permits. The holder of the internal mutex creates its leases first and then waits, with them
 * in place, until the leases stand for at most `permits`; only it adds leases. So while they stand for more, the newest
 * grant's nodes (one uuid: `_c_<uuid>-lease-`) are waiting, not held. With `permits` unknown (a semaphore only Curator
 * opened) every node counts.
 */
export function heldLeases(names: readonly string[], permits: number | undefined): string[] {
  let held = sortLine(names, LEASE_NAME);
  if (permits === undefined) return held;
  while (held.length > 0 && permitsInUse(held) > permits) {
    const newest = held[held.length - 1] as string;
    const grant = newest.slice(0, newest.lastIndexOf(LEASE_NAME));
    held = grant === "" ? held.slice(0, -1) : held.filter((name) => !name.startsWith(grant));
  }
  return held;
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
