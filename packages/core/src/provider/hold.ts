import { publishLost, publishRelease } from "../diagnostics/hold-events.js";
import { LockLostError } from "../errors/lock-lost-error.js";
import { RENEW_FRACTION } from "../options/defaults.js";
import { monotonicNow } from "../time/monotonic.js";

/** One owner's hold of one key in this process, shared by its reentrant lock handles. */
export class Hold {
  readonly backend: string;
  readonly key: string;
  readonly ownerSecret: string;
  readonly fencingToken: bigint | null;
  /** When the first lease of this hold started. */
  readonly grantedAt: number;
  ttlMs: number;
  autoRenew: boolean;
  /** Lock handles of this hold not yet released. */
  openHandles = 0;
  /** True once the last handle's release was sent: the key is about to be free, and its release may already be announced. */
  releasing = false;
  /** Where it is in its provider's `HoldList`; -1 when not there. */
  listIndex = -1;
  #validUntil: number;
  #renewAt: number;
  /** Armed only while someone may listen to `signal`; everything else checks the deadline when it reads the state. */
  #deadline: NodeJS.Timeout | undefined;
  #ended = false;
  #controller: AbortController | undefined;
  #lostReason: LockLostError | undefined;
  /** The driver's signal of the server-side hold's loss that this hold follows (`follow`), and how to stop. */
  #followed: AbortSignal | undefined;
  #unfollow: (() => void) | undefined;
  readonly #onEnd: (hold: Hold) => void;

  constructor(
    init: {
      backend: string;
      key: string;
      ownerSecret: string;
      fencingToken: bigint | null;
      ttlMs: number;
      autoRenew: boolean;
      validUntil: number;
      startedAt: number;
      /** When the watchdog should first renew; by default a share of the ttl after `startedAt`. */
      renewAt?: number;
    },
    onEnd: (hold: Hold) => void,
  ) {
    this.backend = init.backend;
    this.key = init.key;
    this.ownerSecret = init.ownerSecret;
    this.fencingToken = init.fencingToken;
    this.ttlMs = init.ttlMs;
    this.autoRenew = init.autoRenew;
    this.#onEnd = onEnd;
    this.#validUntil = init.validUntil;
    this.grantedAt = init.startedAt;
    this.#renewAt = init.renewAt ?? init.startedAt + init.ttlMs * RENEW_FRACTION;
  }

  /**
   * Created on first use: most holds end without anyone listening. Reading it checks the deadline
   * first, so it is aborted even when the deadline timer has not run yet (e.g. right after a process pause).
   */
  get signal(): AbortSignal {
    this.#loseIfPastDeadline();
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#lostReason !== undefined) this.#controller.abort(this.#lostReason);
      else if (!this.#ended) this.#armDeadline();
    }
    return this.#controller.signal;
  }

  /** Why the hold was lost, once it was (checking the deadline first). */
  get lostReason(): LockLostError | undefined {
    this.#loseIfPastDeadline();
    return this.#lostReason;
  }

  get validUntil(): number {
    return this.#validUntil;
  }

  /** When the watchdog should renew next. */
  get renewAt(): number {
    return this.#renewAt;
  }

  get active(): boolean {
    return this.lostReason === undefined && this.openHandles > 0;
  }

  /** Records a successful renewal or re-entry whose lease started at `startedAt`; deadlines only move forward. */
  extend(validUntil: number, startedAt: number, ttlMs: number): void {
    if (!this.active) return;
    this.#renewAt = startedAt + ttlMs * RENEW_FRACTION;
    if (validUntil <= this.#validUntil) return;
    this.#validUntil = validUntil;
    if (this.#controller !== undefined) this.#armDeadline();
  }

  /** Retry a failed renewal soon, but never later than the deadline allows. */
  retryRenewalSoon(): void {
    const left = this.#validUntil - monotonicNow();
    this.#renewAt = monotonicNow() + Math.max(10, Math.min(left / 3, this.ttlMs / 10));
  }

  /** The hold can no longer be proven: abort its signal and forget it. */
  lose(reason: string, cause?: unknown): void {
    if (this.#lostReason !== undefined) return;
    this.#lostReason = new LockLostError(this.key, reason, cause === undefined ? undefined : { cause });
    this.#controller?.abort(this.#lostReason);
    this.#end();
    publishLost(this, reason);
  }

  /** Loses the hold the moment `lost` aborts: the driver says the server side of the hold is gone (`DriverGranted.lost`). */
  follow(lost: AbortSignal): void {
    if (lost === this.#followed || this.#ended) return;
    this.#unfollow?.();
    const onLost = () => this.lose("the backend reported its server-side hold gone", lost.reason);
    if (lost.aborted) {
      onLost();
      return;
    }
    lost.addEventListener("abort", onLost, { once: true });
    this.#followed = lost;
    this.#unfollow = () => lost.removeEventListener("abort", onLost);
  }

  /** The last local handle was released: stop timers without aborting. */
  finish(): void {
    const released = !this.#ended && this.#lostReason === undefined;
    this.#end();
    if (released) publishRelease(this);
  }

  #end(): void {
    this.#unfollow?.();
    this.#unfollow = undefined;
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
    this.#ended = true;
    this.#onEnd(this);
  }

  #loseIfPastDeadline(): void {
    if (this.#lostReason === undefined && !this.#ended && monotonicNow() >= this.#validUntil) this.#expire();
  }

  #expire(): void {
    this.lose("its lease deadline passed without a successful renewal");
  }

  #armDeadline(): void {
    clearTimeout(this.#deadline);
    const delay = Math.max(0, this.#validUntil - monotonicNow());
    this.#deadline = setTimeout(() => this.#expire(), delay);
    this.#deadline.unref();
  }
}
