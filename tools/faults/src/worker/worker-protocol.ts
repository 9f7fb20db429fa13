import type { FenceTarget } from "../fence/fenced-resource.js";
import type { HistoryEvent } from "../history/history-event.js";

/**
 * What a worker's lockers contend for: `key` as a lock, each critical section writing to a fenced resource; `key`
 * as a counting semaphore of `permits`, locker `i` asking for `counts[i % counts.length]` of them each time; or sets of
 * `keys` taken with `acquireAll`, each of `setSize` keys (drawn in [min, max]) picked at random and asked for in a
 * random order, each critical section writing to every key's own fenced resource.
 */
export type WorkerSubject =
  | { readonly kind: "lock"; readonly fence: FenceTarget }
  | { readonly kind: "semaphore"; readonly permits: number; readonly counts: readonly number[] }
  | { readonly kind: "multi-key"; readonly fence: FenceTarget; readonly keys: readonly string[]; readonly setSize: readonly [number, number] };

/** What a fault worker is asked to do. */
export interface WorkerTask {
  /** Name used in the history. */
  readonly worker: string;
  /** Lock URL, as `createLockProvider` takes it. */
  readonly url: string;
  /** The lock key, or the semaphore's name. */
  readonly key: string;
  readonly subject: WorkerSubject;
  readonly ttlMs: number;
  /** Each critical section sleeps a random time in [min, max] between its two writes. */
  readonly holdMs: readonly [number, number];
  /** Bound of one `acquire` call. */
  readonly waitMs: number;
  /** Pause between a release and the next attempt. */
  readonly thinkMs: number;
  /** Loops contending for the key on the process's one provider, named by `lockerName`. */
  readonly lockers: number;
}

export type ParentMessage =
  | { readonly type: "start"; readonly task: WorkerTask }
  | { readonly type: "stop" }
  /** Keep the critical section of `hold`, if it is still running, going until "go-on" (a long job under the lock). */
  | { readonly type: "hold-on"; readonly hold: string }
  | { readonly type: "go-on" };

export type WorkerMessage =
  | { readonly type: "event"; readonly event: HistoryEvent }
  | { readonly type: "ready" }
  | { readonly type: "done" }
  | { readonly type: "failed"; readonly message: string };
