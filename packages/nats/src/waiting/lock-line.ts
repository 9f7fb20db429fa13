import { randomUUID } from "node:crypto";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverWait } from "@distlock/core/driver";
import { type HoldContext, readHold } from "../holds/hold-context.js";
import { releaseHold } from "../holds/release-hold.js";
import { takeHold } from "../holds/take-hold.js";
import { lineKey, lockKey } from "../keys/lock-keys.js";
import { type LiveSemaphore, liveSemaphoreOf, readLiveSemaphore, soonestLapseMs, soonestLapseOfMs } from "../semaphore/live-semaphore.js";
import { updateSemaphore } from "../semaphore/update-semaphore.js";
import type { KeyWatches } from "./key-watches.js";
import { RunningWaits } from "./running-waits.js";

/** Where a waiter stands after one look at the line: how many are ahead, and when to look again without a write to hear. */
interface Place {
  /** The line's revision this look read or wrote. */
  readonly revision: number;
  /** The line as this look left it, when it wrote nothing (else undefined: the next look reads it). */
  readonly live?: LiveSemaphore;
  readonly ahead: number;
  readonly wakeInMs: number;
  /** When this look rewrote the waiter's place (its lease restarts), if it did. */
  readonly writtenAt?: number;
}

/**
 * The strict FIFO line of a lock's waiters, kept beside the lock in the bucket key `line.<hex>` as a semaphore record
 * without grants: each place leased on its version nonce, refreshed every third of the waiter's lease, so a crashed
 * waiter's place lapses. A waiter joins the line's end and takes the lock once it is at the head and the lock is free,
 * then leaves the line; it wakes on a KV watch of the lock and of the line, or when the lease of the hold or of a place
 * ahead may have run out. A direct attempt (`refusesNewcomer`) is refused while anyone waits, so nobody overtakes the
 * line. Writes to the two keys are separate, and that is enough: a newcomer that read an empty line came before every
 * waiter that joined after that read, and a head waiter's take is a conditional write on the lock like any other.
 */
export class LockLine {
  readonly #context: () => Promise<HoldContext>;
  readonly #watches: KeyWatches;
  readonly #waits = new RunningWaits();
  /** How many waits of this process each key has. */
  readonly #waiting = new Map<string, number>();

  constructor(context: () => Promise<HoldContext>, watches: KeyWatches) {
    this.#context = context;
    this.#watches = watches;
  }

  /** Whether this process has a waiter on `key`: its line is not empty, so a newcomer here goes straight to the line. */
  isWatching(key: string): boolean {
    return (this.#waiting.get(key) ?? 0) > 0;
  }

  /**
   * One direct attempt: the lock's line and hold read together, then refused while the line has a live waiter (unless
   * the owner re-enters its own hold), else `takeHold` from the hold read.
   */
  async tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    const context = await this.#context();
    const bucketKey = lockKey(request.key);
    const [line, state] = await Promise.all([readLiveSemaphore(context, lineKey(request.key)), readHold(context, bucketKey)]);
    const reentry = state.hold !== undefined && state.hold.takeoverInMs > 0 && state.hold.record.secret === request.ownerSecret;
    if (!reentry && waiters(line) > 0) return { acquired: false, retryAfterMs: soonestLapseMs(line) };
    return takeHold(context, bucketKey, request, state);
  }

  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return this.#waits.track(this.#wait(request, wait));
  }

  /** Resolves once every wait has ended; the provider aborts them all before it closes the driver. */
  waitsEnded(): Promise<void> {
    return this.#waits.ended();
  }

  async #wait(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    wait.signal.throwIfAborted();
    const { key, ownerSecret } = request;
    this.#waiting.set(key, (this.#waiting.get(key) ?? 0) + 1);
    const line = lineKey(key);
    try {
      const watch = await this.#watches.watch(lockKey(key), line);
      let placeWrittenAt = Number.NEGATIVE_INFINITY;
      // The line's revision this waiter last read or wrote: a write the watch delivered since is newer, and read from it.
      let lineRevision = Number.POSITIVE_INFINITY;
      try {
        for (;;) {
          wait.signal.throwIfAborted();
          const context = await this.#context();
          const delivered = this.#watches.latest(line);
          const known = delivered !== undefined && delivered.revision >= lineRevision ? liveSemaphoreOf(context, line, delivered) : undefined;
          const place = await this.#look(context, request, placeWrittenAt, known);
          placeWrittenAt = place.writtenAt ?? placeWrittenAt;
          lineRevision = place.revision;
          let wakeInMs = place.wakeInMs;
          if (place.ahead === 0) {
            const sentAt = performance.now();
            const outcome = await takeHold(context, lockKey(key), request);
            if (outcome.acquired) {
              try {
                await this.#leave(context, line, ownerSecret, place.live);
                wait.signal.throwIfAborted();
              } catch (error) {
                // Nothing is left behind: the hold goes (or lapses with its lease if the server cannot be reached).
                await releaseHold(context, lockKey(key), ownerSecret).catch(() => undefined);
                throw error;
              }
              return { ...outcome, grantedAt: sentAt };
            }
            wakeInMs = Math.min(wakeInMs, outcome.retryAfterMs);
          }
          await watch.next(Math.max(1, wakeInMs), wait.signal);
        }
      } catch (error) {
        if (wait.signal.aborted) await this.#leave(await this.#context(), line, ownerSecret).catch(() => undefined);
        throw error;
      } finally {
        watch.close();
      }
    } finally {
      const left = (this.#waiting.get(key) ?? 1) - 1;
      if (left === 0) this.#waiting.delete(key);
      else this.#waiting.set(key, left);
    }
  }

  /** The waiter's place: joins the line's end if it has none (or lost it), refreshes it once a third of its lease passed. */
  #look(context: HoldContext, request: DriverAcquireRequest, placeWrittenAt: number, known: LiveSemaphore | undefined): Promise<Place> {
    const { ownerSecret, holder, ttlMs } = request;
    const refreshAfterMs = ttlMs / 3;
    return updateSemaphore<Place>(
      context,
      lineKey(request.key),
      (live) => {
        const record = live.record ?? { permits: 1, grants: [], line: [] };
        const index = record.line.findIndex((entry) => entry.secret === ownerSecret);
        const ahead = index === -1 ? record.line.length : index;
        // Nobody ahead: the hold's lease bounds the wait instead (the caller takes the lock or learns it).
        const aheadLapseMs = ahead === 0 ? refreshAfterMs : soonestLapseOfMs(live, record.line.slice(0, ahead));
        const sinceWrite = performance.now() - placeWrittenAt;
        if (index !== -1 && sinceWrite < refreshAfterMs) {
          return { answer: (revision) => ({ revision, live, ahead, wakeInMs: Math.min(aheadLapseMs, refreshAfterMs - sinceWrite) }) };
        }
        const entry = { secret: ownerSecret, holder, count: 1, leaseMs: ttlMs, version: randomUUID() };
        const line = index === -1 ? [...record.line, entry] : record.line.map((other, at) => (at === index ? entry : other));
        const writtenAt = performance.now();
        return { next: { ...record, line }, answer: (revision) => ({ revision, ahead, wakeInMs: Math.min(aheadLapseMs, refreshAfterMs), writtenAt }) };
      },
      known,
    );
  }

  /** Takes the waiter's place out of the line (the record goes once the line is empty); `known` is a view to start from. */
  async #leave(context: HoldContext, line: string, ownerSecret: string, known?: LiveSemaphore): Promise<void> {
    await updateSemaphore(
      context,
      line,
      (live) => {
        const { record } = live;
        if (record === undefined || !record.line.some((entry) => entry.secret === ownerSecret)) return { answer: () => undefined };
        return { next: { ...record, line: record.line.filter((entry) => entry.secret !== ownerSecret) }, answer: () => undefined };
      },
      known,
    );
  }
}

/** Live places in a line. */
function waiters(line: LiveSemaphore): number {
  return line.record?.line.length ?? 0;
}
