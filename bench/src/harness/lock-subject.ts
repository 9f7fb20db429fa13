import type { LockProvider } from "@distlock/core";

/** A held lock: call to release it. */
export type Release = () => Promise<void>;

/** One lock implementation connected to its server(s). */
export interface OpenSubject {
  /** Waits until `key` is held (retrying the way the library does, or polling where it cannot wait). */
  acquire(key: string, ttlMs: number): Promise<Release>;
  close(): Promise<void>;
}

/**
 * Whose code a subject runs: ours, a peer library, the bare-protocol floor, or distlock's own server commands sent
 * without its client code (what distlock's client adds is its row minus the replay's).
 */
export type SubjectRole = "distlock" | "peer" | "floor" | "replay";

/** A lock implementation under test. */
export interface LockSubject {
  /** Stable id, unique within the module that exports the subject; worker processes find the subject by it. */
  readonly id: string;
  readonly name: string;
  readonly role: SubjectRole;
  /** Settings worth printing under the table. */
  readonly settings: string;
  /** How many may hold a key at once: a semaphore's permits, each `acquire` taking one. @default 1 (a lock) */
  readonly permits?: number;
  /** Connects to `target` (a URL or endpoint list, as the backend's scenarios pass it). */
  open(target: string): Promise<OpenSubject>;
}

/** The names of the peer libraries among `subjects`. */
export function peerNames(subjects: readonly LockSubject[]): ReadonlySet<string> {
  return new Set(subjects.filter((subject) => subject.role === "peer").map((subject) => subject.name));
}

/** How many may hold a key at once for every one of `subjects` (subjects measured side by side must agree). */
export function permitsOf(subjects: readonly LockSubject[]): number {
  const permits = new Set(subjects.map((subject) => subject.permits ?? 1));
  if (permits.size > 1) throw new Error(`subjects measured side by side admit different numbers of holders: ${[...permits].join(", ")}`);
  return [...permits][0] ?? 1;
}

/** A distlock provider seen as a subject: acquire with the given ttl, release the handle. */
export function providerSubject(provider: LockProvider): OpenSubject {
  return {
    async acquire(key, ttlMs) {
      const lock = await provider.acquire(key, { ttlMs });
      return () => lock.release();
    },
    close: () => provider.close(),
  };
}

/** The subject with `id` among the exports of `module` (how a worker process finds what its parent measures). */
export async function importSubject(module: string, id: string): Promise<LockSubject> {
  const exports: Record<string, unknown> = await import(module);
  const subject = Object.values(exports).find((value): value is LockSubject => isLockSubject(value) && value.id === id);
  if (subject === undefined) throw new Error(`${module} exports no lock subject with id ${id}`);
  return subject;
}

function isLockSubject(value: unknown): value is LockSubject {
  return typeof value === "object" && value !== null && "id" in value && "open" in value && typeof value.open === "function";
}
