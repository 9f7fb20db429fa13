import { publishRenew, publishRenewFailure } from "../diagnostics/hold-events.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { monotonicNow } from "../time/monotonic.js";
import type { Hold } from "./hold.js";
import type { HoldList } from "./hold-list.js";
import { conservativeDeadline } from "./lease-math.js";

/** Share of a lease within which a not-yet-due renewal joins the current batch. */
const BATCH_WINDOW_FRACTION = 0.1;

/** The watchdog: one timer per provider, renewing every due hold of the provider's list in one batched driver call. */
export class RenewalScheduler {
  readonly #driver: LockDriver;
  readonly #holds: HoldList;
  #timer: NodeJS.Timeout | undefined;
  #timerDueAt = Number.POSITIVE_INFINITY;
  #running = false;
  #stopped = false;

  constructor(driver: LockDriver, holds: HoldList) {
    this.#driver = driver;
    this.#holds = holds;
  }

  /** `hold` was added to the list (or renewed by a re-entry): the timer moves if it is due sooner. */
  added(hold: Hold): void {
    if (hold.autoRenew && hold.renewAt < this.#timerDueAt) this.#schedule();
  }

  /** Stops renewing for good; holds are left to their deadlines. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDueAt = Number.POSITIVE_INFINITY;
  }

  #schedule(): void {
    if (this.#stopped || this.#running) return;
    let next = Number.POSITIVE_INFINITY;
    for (const hold of this.#holds) if (hold.autoRenew) next = Math.min(next, hold.renewAt);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDueAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    this.#timer = setTimeout(() => void this.#tick(), Math.max(0, next - monotonicNow()));
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    this.#timerDueAt = Number.POSITIVE_INFINITY;
    this.#running = true;
    try {
      const now = monotonicNow();
      const due = this.#holds.snapshot().filter((h) => h.autoRenew && h.active && h.renewAt <= now + h.ttlMs * BATCH_WINDOW_FRACTION);
      if (due.length > 0) await this.#renew(due);
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }

  async #renew(holds: Hold[]): Promise<void> {
    const startedAt = monotonicNow();
    const ttls = holds.map((h) => h.ttlMs);
    let results: boolean[];
    try {
      results = await this.#driver.renew(holds.map((h, i) => ({ key: h.key, ownerSecret: h.ownerSecret, ttlMs: ttls[i] as number })));
    } catch (error) {
      for (const hold of holds) {
        hold.retryRenewalSoon();
        publishRenewFailure(hold, error);
      }
      return;
    }
    holds.forEach((hold, i) => {
      const ttlMs = ttls[i] as number;
      if (results[i] === true) {
        hold.extend(conservativeDeadline(startedAt, ttlMs), startedAt, ttlMs);
        publishRenew(hold, ttlMs);
      } else {
        hold.lose("the server no longer shows this owner holding it");
        publishRenewFailure(hold, hold.lostReason);
      }
    });
  }
}
