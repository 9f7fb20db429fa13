import type { WireGrant, WireLockState, WireRefusal, WireRenewal } from "../protocol/lockd-protocol.js";

interface Hold {
  readonly secret: string;
  readonly holder: string;
  holdCount: number;
  readonly token: bigint;
  /** On this server's `performance.now()`. */
  expiresAt: number;
}

/**
 * The locks of a lockd server. Each method runs to its end without awaiting anything, so on Node's single thread it is
 * one atomic operation: no other request sees a half-made change. Leases are judged on this process's monotonic clock.
 */
export class LockTable {
  readonly #holds = new Map<string, Hold>();
  /** The last token of each key; kept after release and expiry, so a key's tokens never go back while the server runs. */
  readonly #tokens = new Map<string, bigint>();
  readonly #released: (key: string) => void;

  /** `released(key)` is called when a hold ends by release or force-release (expiry is found lazily, on the next call). */
  constructor(released: (key: string) => void) {
    this.#released = released;
  }

  /** Takes the key if free or expired; re-enters it if `secret` holds it (one level more, the longer of both leases). */
  acquire(key: string, secret: string, holder: string, ttlMs: number): WireGrant | WireRefusal {
    const now = performance.now();
    const hold = this.#live(key, now); // drops the hold if its lease ran out
    if (hold === undefined) {
      const token = (this.#tokens.get(key) ?? 0n) + 1n; // the counter outlives the hold
      this.#tokens.set(key, token);
      this.#holds.set(key, { secret, holder, holdCount: 1, token, expiresAt: now + ttlMs });
      return { acquired: true, token: String(token), holdCount: 1, ttlMs };
    }
    if (hold.secret !== secret) return { acquired: false, retryAfterMs: Math.max(1, Math.ceil(hold.expiresAt - now)) };
    hold.holdCount += 1;
    hold.expiresAt = Math.max(hold.expiresAt, now + ttlMs);
    return { acquired: true, token: String(hold.token), holdCount: hold.holdCount, ttlMs: Math.floor(hold.expiresAt - now) };
  }

  /** Extends each lease its owner still holds, never shortening one. */
  renew(renewals: readonly WireRenewal[]): boolean[] {
    const now = performance.now();
    return renewals.map(({ key, secret, ttlMs }) => {
      const hold = this.#live(key, now);
      if (hold?.secret !== secret) return false;
      hold.expiresAt = Math.max(hold.expiresAt, now + ttlMs);
      return true;
    });
  }

  /** Drops one level of the owner's hold; the last level frees the key. */
  release(key: string, secret: string): { held: boolean; holdCount: number } {
    const hold = this.#live(key, performance.now());
    if (hold?.secret !== secret) return { held: false, holdCount: 0 };
    hold.holdCount -= 1;
    if (hold.holdCount === 0) this.#free(key);
    return { held: true, holdCount: hold.holdCount };
  }

  /** The public view of a held key; never the secret. */
  inspect(key: string): WireLockState | null {
    const now = performance.now();
    const hold = this.#live(key, now);
    return hold === undefined ? null : view(key, hold, now);
  }

  /** The first `limit` held keys starting with `prefix` (literally), in UTF-8 byte order. */
  list(prefix: string, limit: number): WireLockState[] {
    const now = performance.now();
    const keys = [...this.#holds.keys()].filter((key) => key.startsWith(prefix) && this.#live(key, now) !== undefined);
    keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return keys.slice(0, limit).map((key) => view(key, this.#holds.get(key) as Hold, now));
  }

  /** Frees the key whoever holds it; true if a live hold was removed. */
  forceRelease(key: string): boolean {
    if (this.#live(key, performance.now()) === undefined) return false;
    this.#free(key);
    return true;
  }

  #live(key: string, now: number): Hold | undefined {
    const hold = this.#holds.get(key);
    if (hold === undefined || hold.expiresAt > now) return hold;
    this.#holds.delete(key);
    return undefined;
  }

  #free(key: string): void {
    this.#holds.delete(key);
    this.#released(key);
  }
}

function view(key: string, hold: Hold, now: number): WireLockState {
  return { key, holder: hold.holder, holdCount: hold.holdCount, token: String(hold.token), ttlRemainingMs: Math.max(0, Math.floor(hold.expiresAt - now)) };
}
