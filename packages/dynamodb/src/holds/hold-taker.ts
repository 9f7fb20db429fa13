import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { LockTable } from "../connection/lock-table.js";
import type { LeaseObservations } from "../leases/lease-observations.js";
import type { PlaceLeases } from "../leases/place-leases.js";
import { lineWrites } from "../table/line-writes.js";
import type { LockItem } from "../table/lock-item.js";
import { type LockWrite, lockWrites } from "../table/lock-writes.js";
import { plainWrites } from "../table/plain-writes.js";
import type { FreedKeys } from "./freed-keys.js";

/** Attempts within one `tryAcquire` when the item changes between its read and its conditional write. */
const MAX_ROUNDS = 4;

/** What to do about one key as it was read: a conditional write on what was read, or a refusal. */
export type TakeStep = { readonly write: LockWrite } | { readonly refused: DriverRefused };

/**
 * One `tryAcquire`: take a free key, re-enter the owner's hold, or take over a hold whose record version stayed the
 * same for a whole lease on this process's clock; else refuse until that could happen. Nobody overtakes the line: a
 * direct attempt is refused while anyone waits in it (after taking out a head whose place lapsed), and a waiter takes
 * the key only from the head of the line. Each change is one conditional write on what was read, so two writers never
 * both succeed.
 */
export class HoldTaker {
  readonly #table: LockTable;
  readonly #observations: LeaseObservations;
  readonly #places: PlaceLeases;
  readonly #freedKeys: FreedKeys;

  constructor(table: LockTable, observations: LeaseObservations, places: PlaceLeases, freedKeys: FreedKeys) {
    this.#table = table;
    this.#observations = observations;
    this.#places = places;
    this.#freedKeys = freedKeys;
  }

  async take(key: string, request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    // A key this process freed is put whole while nothing changed it since (no expression to evaluate, nothing to
    // read back); a key not seen held is written at once (one call when it is free); one seen held is read first, so
    // that waiting costs reads rather than failed writes.
    const freed = this.#freedKeys.take(key);
    if (freed !== undefined) {
      const retake = plainWrites.retakeFreed(key, newHold(request), freed);
      if (await this.#table.put(key, retake)) return this.granted(key, retake.written);
    }
    if (!this.#observations.has(key)) {
      const taken = await this.#table.write(key, lockWrites.takeFree(newHold(request)));
      if (taken !== undefined) return this.granted(key, taken);
    }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const item = await this.#table.read(key);
      if (await this.dropLapsedHead(key, item)) continue;
      const step = this.step(key, request, item);
      if ("refused" in step) return step.refused;
      const written = await this.#table.write(key, step.write);
      if (written !== undefined) return this.granted(key, written);
    }
    return { acquired: false, retryAfterMs: 1 };
  }

  /**
   * The write that takes or re-enters `key` as `item` shows it, or the refusal while another owner's lease may run or,
   * for anyone but the owner re-entering, while another waiter heads the line. `placeId`: the caller's own place, which
   * heads the line; its take leaves the line in the same write.
   */
  step(key: string, request: DriverAcquireRequest, item: LockItem | undefined, placeId?: string): TakeStep {
    const held = item?.hold;
    if (held !== undefined && held.ownerSecret === request.ownerSecret) {
      return { write: lockWrites.reenter(request.ownerSecret, (item as LockItem).recordVersion, Math.max(held.leaseMs, request.ttlMs)) };
    }
    const head = item?.line[0];
    const lineWaitMs = head === undefined || head.id === placeId ? 0 : Math.max(1, this.#places.untilLapse(head));
    const holdWaitMs = this.untilTakeover(key, item);
    const waits = [lineWaitMs, holdWaitMs].filter((ms) => ms > 0);
    if (waits.length > 0) return { refused: { acquired: false, retryAfterMs: Math.ceil(Math.min(...waits)) } };
    if (item === undefined || held === undefined) {
      this.#observations.forget(key);
      return { write: lockWrites.takeFree(newHold(request), placeId) };
    }
    return { write: lockWrites.takeOver(newHold(request), item.recordVersion, placeId) };
  }

  /**
   * Milliseconds until the hold `item` shows may be taken over (0 when free or once it may), counted from this
   * process's first sighting of its version: waiters behind the head call it on every read too, so the head that
   * follows a dead one does not start the count afresh.
   */
  untilTakeover(key: string, item: LockItem | undefined): number {
    const held = item?.hold;
    if (item === undefined || held === undefined) return 0;
    return this.#observations.untilTakeover(this.#observations.see(key, item.recordVersion, held.leaseMs));
  }

  /** Takes the head's place out of the line when it has lapsed on this process's clock: whether it wrote (read again then). */
  async dropLapsedHead(key: string, item: LockItem | undefined): Promise<boolean> {
    const head = item?.line[0];
    if (head === undefined || this.#places.untilLapse(head) > 0) return false;
    await this.#table.writeOnly(key, lineWrites.dropLapsedHead(head));
    return true;
  }

  /** The grant the written item shows; this process's own write is also a sighting of its version. */
  granted(key: string, item: LockItem): DriverGranted {
    const hold = item.hold as NonNullable<LockItem["hold"]>;
    this.#observations.see(key, item.recordVersion, hold.leaseMs);
    if (hold.ownerSecret !== undefined) this.#freedKeys.granted(key, hold.ownerSecret, item.fencingToken);
    return { acquired: true, fencingToken: item.fencingToken, holdCount: hold.holdCount, ttlMs: hold.leaseMs };
  }
}

function newHold(request: DriverAcquireRequest): { ownerSecret: string; holder: string; leaseMs: number } {
  return { ownerSecret: request.ownerSecret, holder: request.holder, leaseMs: request.ttlMs };
}
