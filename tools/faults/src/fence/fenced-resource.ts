import { type Lock, LockError } from "@distlock/core";
import type { FencingLock } from "@distlock/fence";

/**
 * The resource a backend's workers write to, by kind: a SQL row on a database of the backend's dialect, a Redis key,
 * or an etcd key on the lock's own etcd (`fencedTxn` checks the lock's member key in the etcd it writes to).
 */
export type FenceKind = "postgres" | "mariadb" | "sqlite" | "redis" | "etcd";

/** Where a worker's fenced writes go; plain data, sent to the worker with its task. */
export type FenceTarget =
  | { readonly kind: "sql"; readonly dialect: "postgres" | "mysql" | "sqlite"; readonly url: string }
  | { readonly kind: "redis"; readonly port: number }
  /** The etcd the lock lives in, reached the way the worker reaches its lock (through its proxies in a network-cut row). */
  | { readonly kind: "etcd" };

/** Outcome of one write to the fenced resource. */
export interface FenceWrite {
  readonly accepted: boolean;
  /**
   * Orders the accepted writes of one resource (1, 2, … for SQL and Redis; the commit's store revision for etcd); 0
   * when not accepted.
   */
  readonly seq: number;
  /**
   * Set when the write got no answer (the server down or cut off): not accepted as far as the writer knows. Only the
   * etcd resource, which lives on the faulted servers, reports this; on the others any failure is the harness's.
   */
  readonly failure?: string;
}

/** The fenced resource as one worker writes to it: each write goes through a `@distlock/fence` helper. */
export interface FencedResource {
  /** Writes under `lock` to the resource of `lock.key`; refused (`accepted: false`) when the helper throws FENCED_OUT. */
  write(lock: Lock): Promise<FenceWrite>;
  close(): Promise<void>;
}

/** The server side of a resource kind, started once for a whole run. */
export interface FenceServer extends AsyncDisposable {
  readonly target: FenceTarget;
  /** Creates the resource of one row's lock key before its workers start. */
  prepare(key: string): Promise<void>;
  close(): Promise<void>;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * The lock as a paused holder sees it: its key and token, and a signal that has not fired. The helpers refuse a lock
 * whose signal has aborted before sending anything; the matrix sends the stale write anyway, since what must stop a
 * stale writer is the resource itself (the helpers' local check has its own tests in packages/fence).
 */
export function asPausedHolder(lock: Lock): FencingLock {
  return { key: lock.key, fencingToken: lock.fencingToken, signal: NEVER_ABORTED };
}

const REFUSED: FenceWrite = Object.freeze({ accepted: false, seq: 0 });

/**
 * Runs one fenced write (`attempt` resolves with the write's `seq`): FENCED_OUT is a refusal, an error `unanswered`
 * recognises is a write that got no answer (never counted as accepted), anything else is the harness's failure.
 */
export async function fenceWrite(attempt: () => Promise<number>, unanswered: (error: unknown) => boolean = () => false): Promise<FenceWrite> {
  try {
    return { accepted: true, seq: await attempt() };
  } catch (error) {
    if (LockError.is(error, "FENCED_OUT")) return REFUSED;
    // By class: etcd3's gRPC errors are all named "Error".
    if (unanswered(error)) return { ...REFUSED, failure: error instanceof Error ? error.constructor.name : String(error) };
    throw error;
  }
}
