import type { LockTable } from "../connection/lock-table.js";
import type { LeaseObservations } from "../leases/lease-observations.js";
import { lockWrites } from "../table/lock-writes.js";
import { plainWrites } from "../table/plain-writes.js";
import type { FreedKeys } from "./freed-keys.js";

/** Attempts within one release when the owner's hold count changes between its read and its write (another process re-entered). */
const MAX_ROUNDS = 4;

/** Owner-only release: one level of the hold per call, the key freed at 0 with its fencing counter kept. */
export class HoldReleaser {
  readonly #table: LockTable;
  readonly #observations: LeaseObservations;
  readonly #freedKeys: FreedKeys;

  constructor(table: LockTable, observations: LeaseObservations, freedKeys: FreedKeys) {
    this.#table = table;
    this.#observations = observations;
    this.#freedKeys = freedKeys;
  }

  async release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    // The common case, held once, is one write; a deeper hold is read to learn its count.
    if (await this.#releaseLast(key, ownerSecret)) return { held: true, holdCount: 0 };
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const hold = (await this.#table.read(key))?.hold;
      if (hold?.ownerSecret !== ownerSecret) {
        this.#freedKeys.forget(key);
        return { held: false, holdCount: 0 };
      }
      if (hold.holdCount <= 1) {
        if (await this.#releaseLast(key, ownerSecret)) return { held: true, holdCount: 0 };
        continue;
      }
      const after = await this.#table.write(key, lockWrites.releaseOne(ownerSecret, hold.holdCount));
      if (after?.hold === undefined) continue;
      this.#observations.see(key, after.recordVersion, after.hold.leaseMs);
      return { held: true, holdCount: after.hold.holdCount };
    }
    throw new Error(`the hold count of "${key}" kept changing during release; try again`);
  }

  /** Frees the key whoever holds it. */
  async forceRelease(key: string): Promise<boolean> {
    const freed = await this.#table.writeOnly(key, lockWrites.forceRelease());
    this.#observations.forget(key);
    this.#freedKeys.forget(key);
    return freed;
  }

  /** Frees the key if the owner holds it once: whether it did. */
  async #releaseLast(key: string, ownerSecret: string): Promise<boolean> {
    const release = plainWrites.releaseLast(ownerSecret);
    if (!(await this.#table.updateOnly(key, release))) return false;
    this.#observations.forget(key);
    this.#freedKeys.freed(key, ownerSecret, release.version);
    return true;
  }
}
