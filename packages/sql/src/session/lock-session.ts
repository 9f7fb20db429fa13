import { LockLostError } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import type { SessionConnection } from "./session-connection.js";
import type { SessionLockId } from "./session-lock-id.js";

/** A connection of the lock space and what it is doing. */
export interface SessionSlot {
  readonly connection: SessionConnection;
  /** Holds whose server lock this session keeps. */
  readonly holds: Set<SessionHold>;
  /** Blocked in `waitLock`: nothing else may run on it, and it holds nothing until granted. */
  waiting: boolean;
  /** Statements sent and not yet answered. */
  inFlight: number;
  /** The idle limit last given to the server (0: none yet). */
  idleLimitMs: number;
}

/** One owner's hold of one key, kept by one session; re-entries only count here. */
export class SessionHold {
  readonly key: string;
  readonly id: SessionLockId;
  readonly ownerSecret: string;
  readonly holder: string;
  readonly fencingToken: bigint;
  readonly slot: SessionSlot;
  holdCount = 1;
  ttlMs: number;
  /** `performance.now()` after which the hold is given up unless renewed. */
  expiresAt: number;
  #timer: NodeJS.Timeout | undefined;
  #lost: AbortController | undefined;
  #lostBecause: LockLostError | undefined;

  constructor(init: { key: string; id: SessionLockId; ownerSecret: string; holder: string; fencingToken: bigint; slot: SessionSlot; ttlMs: number }) {
    this.key = init.key;
    this.id = init.id;
    this.ownerSecret = init.ownerSecret;
    this.holder = init.holder;
    this.fencingToken = init.fencingToken;
    this.slot = init.slot;
    this.ttlMs = init.ttlMs;
    this.expiresAt = monotonicNow() + init.ttlMs;
  }

  /** Aborts with `LockLostError` the moment the hold is lost (its session ended, it expired, it was force-released); core follows it (`DriverGranted.lost`). */
  get lost(): AbortSignal {
    if (this.#lost === undefined) {
      this.#lost = new AbortController();
      if (this.#lostBecause !== undefined) this.#lost.abort(this.#lostBecause);
    }
    return this.#lost.signal;
  }

  /** Moves the lease end to `ttlMs` from now, never earlier than it was, and (re)arms `onExpiry` for it. */
  extend(ttlMs: number, onExpiry: (hold: SessionHold) => void): void {
    const expiresAt = monotonicNow() + ttlMs;
    if (expiresAt <= this.expiresAt && this.#timer !== undefined) return;
    this.ttlMs = Math.max(this.ttlMs, ttlMs);
    this.expiresAt = Math.max(this.expiresAt, expiresAt);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(onExpiry, this.expiresAt - monotonicNow(), this);
    this.#timer.unref();
  }

  remainingMs(): number {
    return Math.max(0, this.expiresAt - monotonicNow());
  }

  /** Stops the expiry timer; with a reason, the hold was lost and its signal aborts. */
  end(lostBecause?: string, cause?: unknown): void {
    clearTimeout(this.#timer);
    if (lostBecause !== undefined && this.#lostBecause === undefined) {
      this.#lostBecause = new LockLostError(this.key, lostBecause, cause === undefined ? undefined : { cause });
      this.#lost?.abort(this.#lostBecause);
    }
  }
}
