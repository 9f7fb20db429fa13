import type { DriverRenewal } from "@distlock/core/driver";
import type { LockTable } from "../connection/lock-table.js";
import type { LeaseObservations } from "../leases/lease-observations.js";
import type { LockItem } from "../table/lock-item.js";
import { lockWrites } from "../table/lock-writes.js";

/** Owner-only renewal: a fresh record version (which restarts every waiter's count) and a lease never shortened. */
export class HoldRenewer {
  readonly #table: LockTable;
  readonly #observations: LeaseObservations;

  constructor(table: LockTable, observations: LeaseObservations) {
    this.#table = table;
    this.#observations = observations;
  }

  /** Whether the owner still held the key and its lease now runs at least `ttlMs` (one conditional write, two when the lease it had was longer). */
  async renew(key: string, { ownerSecret, ttlMs }: DriverRenewal): Promise<boolean> {
    const renewed =
      (await this.#table.write(key, lockWrites.renew(ownerSecret, ttlMs))) ?? (await this.#table.write(key, lockWrites.renewKeepingLease(ownerSecret)));
    if (renewed === undefined) return false;
    const hold = renewed.hold as NonNullable<LockItem["hold"]>;
    this.#observations.see(key, renewed.recordVersion, hold.leaseMs);
    return true;
  }
}
