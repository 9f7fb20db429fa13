import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { LockTable } from "../connection/lock-table.js";
import type { HoldReleaser } from "../holds/hold-releaser.js";
import type { HoldTaker } from "../holds/hold-taker.js";

/**
 * `tryAcquireAll` without transactions (dynalite has no TransactWriteItems): every key is read first, so each one's
 * lease is being timed from this attempt on, and the set is refused, changing nothing, while any key's lease may run.
 * Otherwise the keys are written one by one in the global order; when a write loses a race, the keys taken so far are
 * released again (their fencing counters keep the numbers drawn) and the set is refused.
 */
export class HoldSetTaker {
  readonly #table: LockTable;
  readonly #taker: HoldTaker;
  readonly #releaser: HoldReleaser;

  constructor(table: LockTable, taker: HoldTaker, releaser: HoldReleaser) {
    this.#table = table;
    this.#taker = taker;
    this.#releaser = releaser;
  }

  async take(keys: readonly string[], requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    const items = await Promise.all(keys.map((key) => this.#table.read(key)));
    const steps = keys.map((key, index) => this.#taker.step(key, requests[index] as DriverAcquireRequest, items[index]));
    const refusals = steps.flatMap((step) => ("refused" in step ? [step.refused.retryAfterMs] : []));
    if (refusals.length > 0) return { acquired: false, retryAfterMs: Math.min(...refusals) };
    const granted: DriverGranted[] = [];
    for (const [index, step] of steps.entries()) {
      const key = keys[index] as string;
      const written = "write" in step ? await this.#table.write(key, step.write) : undefined;
      if (written === undefined) {
        await this.#undo(keys.slice(0, index), requests[0]?.ownerSecret ?? "");
        return { acquired: false, retryAfterMs: 1 };
      }
      granted.push(this.#taker.granted(key, written));
    }
    return granted;
  }

  async #undo(keys: readonly string[], ownerSecret: string): Promise<void> {
    await Promise.all(keys.map((key) => this.#releaser.release(key, ownerSecret)));
  }
}
