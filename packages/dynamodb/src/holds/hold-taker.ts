import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { LockTable } from "../connection/lock-table.js";
import type { LeaseObservations } from "../leases/lease-observations.js";
import type { LockItem } from "../table/lock-item.js";
import { type LockWrite, lockWrites } from "../table/lock-writes.js";

/** Attempts within one `tryAcquire` when the item changes between its read and its conditional write. */
const MAX_ROUNDS = 4;

/** What to do about one key as it was read: a conditional write on what was read, or a refusal. */
export type TakeStep = { readonly write: LockWrite } | { readonly refused: DriverRefused };

/**
 * One `tryAcquire`: take a free key, re-enter the owner's hold, or take over a hold whose record version stayed the
 * same for a whole lease on this process's clock; else refuse until that could happen. Each change is one conditional
 * write on what was read, so two writers never both succeed.
 */
export class HoldTaker {
  readonly #table: LockTable;
  readonly #observations: LeaseObservations;

  constructor(table: LockTable, observations: LeaseObservations) {
    this.#table = table;
    this.#observations = observations;
  }

  async take(key: string, request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    // A key not seen held is written at once (one call when it is free); one seen held is read first, so that waiting
    // costs reads rather than failed writes.
    if (!this.#observations.has(key)) {
      const taken = await this.#table.write(key, lockWrites.takeFree(newHold(request)));
      if (taken !== undefined) return this.granted(key, taken);
    }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const step = this.step(key, request, await this.#table.read(key));
      if ("refused" in step) return step.refused;
      const written = await this.#table.write(key, step.write);
      if (written !== undefined) return this.granted(key, written);
    }
    return { acquired: false, retryAfterMs: 1 };
  }

  /** The write that takes or re-enters `key` as `item` shows it, or the refusal while another owner's lease may run. */
  step(key: string, request: DriverAcquireRequest, item: LockItem | undefined): TakeStep {
    const held = item?.hold;
    if (item === undefined || held === undefined) {
      this.#observations.forget(key);
      return { write: lockWrites.takeFree(newHold(request)) };
    }
    if (held.ownerSecret === request.ownerSecret) {
      return { write: lockWrites.reenter(request.ownerSecret, item.recordVersion, Math.max(held.leaseMs, request.ttlMs)) };
    }
    const waitMs = this.#observations.untilTakeover(this.#observations.see(key, item.recordVersion, held.leaseMs));
    if (waitMs > 0) return { refused: { acquired: false, retryAfterMs: Math.ceil(waitMs) } };
    return { write: lockWrites.takeOver(newHold(request), item.recordVersion) };
  }

  /** The grant the written item shows; this process's own write is also a sighting of its version. */
  granted(key: string, item: LockItem): DriverGranted {
    const hold = item.hold as NonNullable<LockItem["hold"]>;
    this.#observations.see(key, item.recordVersion, hold.leaseMs);
    return { acquired: true, fencingToken: item.fencingToken, holdCount: hold.holdCount, ttlMs: hold.leaseMs };
  }
}

function newHold(request: DriverAcquireRequest): { ownerSecret: string; holder: string; leaseMs: number } {
  return { ownerSecret: request.ownerSecret, holder: request.holder, leaseMs: request.ttlMs };
}
