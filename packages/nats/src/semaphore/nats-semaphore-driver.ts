import { randomUUID } from "node:crypto";
import {
  type DriverGranted,
  type DriverPermitRequest,
  type DriverRefused,
  type DriverRenewal,
  type DriverWait,
  PermitsMismatchError,
  type SemaphoreDriver,
  type SemaphoreState,
} from "@distlock/core/driver";
import type { HoldContext } from "../holds/hold-context.js";
import { semaphoreKey } from "../keys/lock-keys.js";
import type { KeyWatches } from "../waiting/key-watches.js";
import { RunningWaits } from "../waiting/running-waits.js";
import { type LiveSemaphore, permitsInUse, soonestLapseMs } from "./live-semaphore.js";
import type { PermitEntry, SemaphoreRecord } from "./semaphore-record.js";
import { updateSemaphore } from "./update-semaphore.js";

/** What a waiter's attempt came to: its grant, or how long until something may change without a write it would hear. */
type Step = { readonly granted: DriverGranted } | { readonly granted?: undefined; readonly wakeInMs: number };

/**
 * Counting semaphores on the lock bucket: one record per semaphore (its permit count, its grants, its strict FIFO
 * line), every change one conditional write of it. A waiter joins the line and grants itself once it is at the head and
 * its permits are free, woken by a KV watch of the record or by the soonest lapse of an entry; it refreshes its place
 * every third of its lease, so a crashed waiter's place lapses like a crashed holder's grant.
 */
export class NatsSemaphoreDriver implements SemaphoreDriver {
  readonly #context: () => Promise<HoldContext>;
  readonly #watches: KeyWatches;
  readonly #waits = new RunningWaits();

  constructor(context: () => Promise<HoldContext>, watches: KeyWatches) {
    this.#context = context;
    this.#watches = watches;
  }

  async tryAcquire(request: DriverPermitRequest): Promise<DriverGranted | DriverRefused> {
    return updateSemaphore<DriverGranted | DriverRefused>(await this.#context(), semaphoreKey(request.key), (live) => {
      const record = inUseWith(live, request);
      if (record.line.length > 0 || permitsInUse(record) + request.count > record.permits) {
        return { answer: () => ({ acquired: false, retryAfterMs: soonestLapseMs(live) }) };
      }
      return { next: withGrant(record, request), answer: (_revision, token) => granted(request, token) };
    });
  }

  acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    return this.#waits.track(this.#wait(request, wait));
  }

  /** Resolves once every wait has ended; the provider aborts them all before it closes the driver. */
  waitsEnded(): Promise<void> {
    return this.#waits.ended();
  }

  async #wait(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    wait.signal.throwIfAborted();
    const bucketKey = semaphoreKey(request.key);
    const watch = await this.#watches.watch(bucketKey);
    let placeWrittenAt = Number.NEGATIVE_INFINITY;
    try {
      for (;;) {
        wait.signal.throwIfAborted();
        const sentAt = performance.now();
        const step = await this.#step(request, placeWrittenAt, () => {
          placeWrittenAt = sentAt;
        });
        if (step.granted !== undefined) {
          if (!wait.signal.aborted) return { ...step.granted, grantedAt: sentAt };
          await this.release(request.key, request.ownerSecret);
          throw wait.signal.reason;
        }
        await watch.next(step.wakeInMs, wait.signal);
      }
    } catch (error) {
      if (wait.signal.aborted) await this.#withdraw(request).catch(() => undefined);
      throw error;
    } finally {
      watch.close();
    }
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const context = await this.#context();
    const renewed: Promise<boolean>[] = [];
    for (const { key, ownerSecret, ttlMs } of renewals) {
      renewed.push(
        updateSemaphore(context, semaphoreKey(key), (live) => {
          const grant = live.record?.grants.find((entry) => entry.secret === ownerSecret);
          if (live.record === undefined || grant === undefined) return { answer: () => false };
          const extended = { ...grant, leaseMs: Math.max(grant.leaseMs, ttlMs), version: randomUUID() };
          return { next: { ...live.record, grants: live.record.grants.map((entry) => (entry === grant ? extended : entry)) }, answer: () => true };
        }),
      );
    }
    return Promise.all(renewed);
  }

  async release(name: string, ownerSecret: string): Promise<boolean> {
    return updateSemaphore(await this.#context(), semaphoreKey(name), (live) => {
      const { record } = live;
      if (record === undefined || !record.grants.some((entry) => entry.secret === ownerSecret)) return { answer: () => false };
      return { next: { ...record, grants: record.grants.filter((entry) => entry.secret !== ownerSecret) }, answer: () => true };
    });
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    return updateSemaphore(await this.#context(), semaphoreKey(name), (live) => ({ answer: () => stateOf(name, live) }));
  }

  /**
   * One attempt of a waiter, in one conditional write: take the permits if it is at the head of the line (or the line
   * is empty) and they are free; else join the line at its end, or refresh its place when a third of its lease passed.
   */
  async #step(request: DriverPermitRequest, placeWrittenAt: number, placeWritten: () => void): Promise<Step> {
    const refreshAfterMs = request.ttlMs / 3;
    return updateSemaphore<Step>(await this.#context(), semaphoreKey(request.key), (live) => {
      const record = inUseWith(live, request);
      const place = record.line.findIndex((entry) => entry.secret === request.ownerSecret);
      const ahead = place === -1 ? record.line.length : place;
      if (ahead === 0 && permitsInUse(record) + request.count <= record.permits) {
        const line = record.line.filter((entry) => entry.secret !== request.ownerSecret);
        return { next: withGrant({ ...record, line }, request), answer: (_revision, token) => ({ granted: granted(request, token) }) };
      }
      const sinceWrite = performance.now() - placeWrittenAt;
      const wakeInMs = Math.max(1, Math.min(soonestLapseMs(live, request.ownerSecret), refreshAfterMs - sinceWrite));
      if (place !== -1 && sinceWrite < refreshAfterMs) return { answer: () => ({ wakeInMs }) };
      const entry = permitEntry(request);
      const line = place === -1 ? [...record.line, entry] : record.line.map((other, index) => (index === place ? entry : other));
      return {
        next: { ...record, line },
        answer: () => {
          placeWritten();
          return { wakeInMs: Math.max(1, Math.min(soonestLapseMs(live, request.ownerSecret), refreshAfterMs)) };
        },
      };
    });
  }

  /** Takes back a waiter's place, or its grant if it granted itself as it was aborted. */
  async #withdraw(request: DriverPermitRequest): Promise<void> {
    await updateSemaphore(await this.#context(), semaphoreKey(request.key), (live) => {
      const { record } = live;
      const mine = (entry: PermitEntry) => entry.secret === request.ownerSecret;
      if (record === undefined || !(record.line.some(mine) || record.grants.some(mine))) return { answer: () => undefined };
      const others = (entry: PermitEntry) => !mine(entry);
      return { next: { ...record, line: record.line.filter(others), grants: record.grants.filter(others) }, answer: () => undefined };
    });
  }
}

/** The live record for `request`: a new one when nobody holds or waits; PERMITS_MISMATCH when it is in use with another count. */
function inUseWith(live: LiveSemaphore, request: DriverPermitRequest): SemaphoreRecord {
  const { record } = live;
  if (record === undefined || (record.grants.length === 0 && record.line.length === 0)) return { permits: request.permits, grants: [], line: [] };
  if (record.permits !== request.permits) throw new PermitsMismatchError(request.key, request.permits, record.permits);
  return record;
}

function permitEntry(request: DriverPermitRequest): PermitEntry {
  const { ownerSecret, holder, count, ttlMs } = request;
  return { secret: ownerSecret, holder, count, leaseMs: ttlMs, version: randomUUID() };
}

/** The record with the request's grant added; it has no token yet: the write that adds it gives it (`grantToken`). */
function withGrant(record: SemaphoreRecord, request: DriverPermitRequest): SemaphoreRecord {
  return { ...record, grants: [...record.grants, permitEntry(request)] };
}

/** One grant per write, so each grant's token (`grantToken` of that write) is greater than every earlier grant's. */
function granted(request: DriverPermitRequest, token: bigint): DriverGranted {
  return { acquired: true, fencingToken: token, holdCount: 1, ttlMs: request.ttlMs };
}

function stateOf(name: string, live: LiveSemaphore): SemaphoreState | null {
  const { record } = live;
  if (record === undefined || (record.grants.length === 0 && record.line.length === 0)) return null;
  const holders = record.grants
    .map((grant) => ({
      holder: grant.holder,
      count: grant.count,
      fencingToken: grant.fencingToken ?? null,
      ttlRemainingMs: live.leaseLeftMs.get(grant.secret) ?? 0,
    }))
    .sort((a, b) => a.ttlRemainingMs - b.ttlRemainingMs);
  return { name, permits: record.permits, inUse: permitsInUse(record), holders, waiters: record.line.length };
}
