import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import type { LockTable } from "../connection/lock-table.js";
import type { HoldReleaser } from "../holds/hold-releaser.js";
import type { HoldTaker } from "../holds/hold-taker.js";
import type { PlaceLeases } from "../leases/place-leases.js";
import { lineWrites, MAX_LINE_PLACES } from "../table/line-writes.js";
import type { LockItem } from "../table/lock-item.js";
import { ContendedKeys } from "./contended-keys.js";
import { PollDelay } from "./poll-delay.js";

/**
 * The shortest lease of a place, whatever the waiter's `ttlMs`: a place is refreshed every third of its lease, and a
 * lease of a few milliseconds could not be kept alive by any waiter (nor would its refreshes leave time to read).
 */
const MIN_PLACE_LEASE_MS = 250;

/** What one look at the item leaves a waiter to do: write (then look again at once), or sleep until `wakeInMs` has passed. */
type Next = { readonly written: Promise<LockItem | undefined> } | { readonly wakeInMs: number };

/**
 * The native wait of a key's waiters: a place at the end of the line in the key's item, leased like a hold (refreshed
 * every third of the waiter's lease, so a dead waiter's place lapses and the waiter behind takes it out). Only the head
 * takes the key, when it reads it free or its hold's lease ran out, in one write that also leaves the line; so the key
 * goes to waiters in the order they joined, across processes. DynamoDB cannot notify: each waiter polls with a
 * consistent read (`PollDelay`), every sleep bounded by when its place is due a refresh and when the lease of the hold
 * or of the place ahead could run out.
 */
export class LineWaiter {
  readonly #table: LockTable;
  readonly #taker: HoldTaker;
  readonly #releaser: HoldReleaser;
  readonly #places: PlaceLeases;
  readonly #contended = new ContendedKeys();
  readonly #running = new Set<Promise<unknown>>();

  constructor(table: LockTable, taker: HoldTaker, releaser: HoldReleaser, places: PlaceLeases) {
    this.#table = table;
    this.#taker = taker;
    this.#releaser = releaser;
    this.#places = places;
  }

  /** Whether this process waits in `key`'s line (the namespaced key), or did a moment ago: a new owner here then joins the line at once. */
  isContended(key: string): boolean {
    return this.#contended.has(key);
  }

  /** Waits in `key`'s line until the key is granted, or rejects with `signal.reason` once it aborts, its place taken out. */
  wait(key: string, request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    const waiting = this.#wait(key, request, signal);
    const settled = waiting.catch(() => undefined);
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return waiting;
  }

  /** Resolves once every wait has ended (each takes its place out first): the provider aborts them before it closes the driver. */
  async waitsEnded(): Promise<void> {
    await Promise.all(this.#running);
  }

  async #wait(key: string, request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    signal.throwIfAborted();
    this.#contended.enter(key);
    const placeId = randomUUID();
    const placeLeaseMs = Math.max(request.ttlMs, MIN_PLACE_LEASE_MS);
    const refreshEveryMs = placeLeaseMs / 3;
    const delay = new PollDelay();
    try {
      let placeWrittenAt = performance.now();
      let item = await this.#table.write(key, lineWrites.join(placeId, placeLeaseMs));
      if (item === undefined) throw new Error(`the line of "${key}" is full (${MAX_LINE_PLACES} waiters); try again later`);
      for (;;) {
        signal.throwIfAborted();
        const current = item ?? (await this.#table.read(key));
        const index = current?.line.findIndex((place) => place.id === placeId) ?? -1;
        const sentAt = performance.now();
        if (index === -1) {
          // The place lapsed (this process stalled longer than its lease): back to the end of the line.
          item = await this.#table.write(key, lineWrites.join(placeId, placeLeaseMs));
          placeWrittenAt = sentAt;
          continue;
        }
        const refreshInMs = placeWrittenAt + refreshEveryMs - sentAt;
        if (refreshInMs <= 0) {
          item = await this.#table.write(key, lineWrites.refresh(index, placeId));
          if (item !== undefined) placeWrittenAt = sentAt;
          continue;
        }
        const next = this.#next(key, request, current as LockItem, index, placeId);
        if ("written" in next) {
          const written = await next.written;
          if (written?.hold?.ownerSecret === request.ownerSecret) return await this.#granted(key, request, placeId, written, sentAt, signal);
          item = undefined;
          continue;
        }
        await sleep(Math.max(1, Math.min(delay.next(index), next.wakeInMs, refreshInMs)), undefined, { signal }).catch(() => undefined);
        item = undefined;
      }
    } catch (error) {
      if (signal.aborted) await this.#leave(key, placeId).catch(() => undefined);
      throw signal.aborted ? signal.reason : error;
    } finally {
      this.#contended.leave(key);
    }
  }

  /** The head takes the key or learns how long its hold may run; a waiter behind takes out a lapsed head or sleeps until it could lapse. */
  #next(key: string, request: DriverAcquireRequest, item: LockItem, index: number, placeId: string): Next {
    if (index === 0) {
      const step = this.#taker.step(key, request, item, placeId);
      if ("refused" in step) return { wakeInMs: step.refused.retryAfterMs };
      return { written: this.#table.write(key, step.write) };
    }
    // Every lease ahead is timed on every read, so a waiter that moves up behind a dead hold or place has counted it already.
    this.#taker.untilTakeover(key, item);
    const [headLapseInMs = 0] = item.line.slice(0, index).map((place) => this.#places.untilLapse(place));
    if (headLapseInMs > 0) return { wakeInMs: headLapseInMs };
    return { written: this.#taker.dropLapsedHead(key, item).then(() => undefined) };
  }

  /** The grant `written` shows, once the place is out of the line (a re-entry leaves it there); given back if the wait was aborted meanwhile. */
  async #granted(key: string, request: DriverAcquireRequest, placeId: string, written: LockItem, sentAt: number, signal: AbortSignal): Promise<DriverGranted> {
    try {
      if (written.line.some((place) => place.id === placeId)) await this.#leave(key, placeId);
      signal.throwIfAborted();
    } catch (error) {
      await this.#releaser.release(key, request.ownerSecret).catch(() => undefined);
      throw error;
    }
    const granted = this.#taker.granted(key, written);
    return { ...granted, grantedAt: sentAt };
  }

  /** Takes the waiter's place out of the line, wherever it now stands. */
  async #leave(key: string, placeId: string): Promise<void> {
    for (let round = 0; round < 4; round++) {
      const index = (await this.#table.read(key))?.line.findIndex((place) => place.id === placeId) ?? -1;
      if (index === -1 || (await this.#table.writeOnly(key, lineWrites.leave(index, placeId)))) return;
    }
  }
}
