import { monotonicNow } from "@distlock/core/internal";
import { type Etcd3, EtcdLeaseInvalidError } from "etcd3";
import type { CallOptions } from "../connection/call-options.js";
import { keepAliveOnce } from "./keep-alive-once.js";

/** Settings a lease keeper needs from the provider. */
export interface LeaseKeeperSettings {
  /** Bound on every call to etcd. */
  readonly requestTimeoutMs: number;
  /** Passed with each unary call (see `driverSettings`). */
  readonly callOptions: CallOptions;
}

/** Shortest pause before a failed background keepalive is retried. */
const KEEPALIVE_RETRY_MS = 250;

/**
 * One etcd lease and what this process can prove about it: `confirmedAt` is the monotonic time at
 * which the last keepalive (or the grant) that etcd confirmed was *sent*, so the lease lives at
 * least until `confirmedAt + ttlMs` on the server unless it is revoked.
 */
export class LeaseKeeper {
  /** The lease id as etcd prints it in decimal. */
  readonly id: string;
  readonly #client: Etcd3;
  readonly #settings: LeaseKeeperSettings;
  #ttlMs: number;
  #confirmedAt: number;
  #lost = false;
  #timer: NodeJS.Timeout | undefined;
  #keepingAlive = false;

  private constructor(client: Etcd3, id: string, ttlMs: number, confirmedAt: number, settings: LeaseKeeperSettings) {
    this.#client = client;
    this.id = id;
    this.#ttlMs = ttlMs;
    this.#confirmedAt = confirmedAt;
    this.#settings = settings;
  }

  /** Grants a lease of at least `ttlMs`, rounded up to whole seconds. */
  static async grant(client: Etcd3, ttlMs: number, settings: LeaseKeeperSettings): Promise<LeaseKeeper> {
    const startedAt = monotonicNow();
    const response = await client.leaseClient.leaseGrant({ TTL: Math.ceil(ttlMs / 1000) }, settings.callOptions);
    return new LeaseKeeper(client, response.ID, Number(response.TTL) * 1000, startedAt, settings);
  }

  /** A keeper for a lease another client granted (an explicit owner re-entering from elsewhere); nothing is proven until `keepAlive()`. */
  static adopt(client: Etcd3, id: string, settings: LeaseKeeperSettings): LeaseKeeper {
    return new LeaseKeeper(client, id, 0, Number.NEGATIVE_INFINITY, settings);
  }

  /** The TTL etcd granted (it raises requests below its minimum); 0 for an adopted lease before its first keepalive. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  get confirmedAt(): number {
    return this.#confirmedAt;
  }

  /** True once etcd said the lease no longer exists. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Milliseconds the lease is proven to last from now (negative when the proof ran out). */
  provenRemainingMs(ttlMs = this.ttlMs): number {
    return this.#confirmedAt + ttlMs - monotonicNow();
  }

  /** Sends one keepalive; true if the lease is alive (and `confirmedAt` moved), false if etcd no longer knows it. Network errors throw. */
  async keepAlive(): Promise<{ alive: boolean; ttlMs: number }> {
    if (this.#lost) return { alive: false, ttlMs: 0 };
    const startedAt = monotonicNow();
    const ttlSeconds = await keepAliveOnce(this.#client, this.id, this.#settings.requestTimeoutMs);
    if (ttlSeconds <= 0) {
      this.#lost = true;
      this.stopKeepingAlive();
      return { alive: false, ttlMs: 0 };
    }
    this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
    this.#ttlMs = ttlSeconds * 1000;
    return { alive: true, ttlMs: this.#ttlMs };
  }

  /** Keeps the lease alive in the background every ttl/3 (retrying failures sooner) until stopped or lost. */
  startKeepingAlive(): void {
    if (this.#keepingAlive || this.#lost) return;
    this.#keepingAlive = true;
    this.#schedule(this.#confirmedAt + this.ttlMs / 3 - monotonicNow());
  }

  stopKeepingAlive(): void {
    this.#keepingAlive = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Ends the lease on the server (its keys are deleted); a lease etcd no longer knows counts as revoked. */
  async revoke(): Promise<void> {
    this.stopKeepingAlive();
    if (this.#lost) return;
    this.#lost = true;
    try {
      await this.#client.leaseClient.leaseRevoke({ ID: this.id }, this.#settings.callOptions);
    } catch (error) {
      if (!(error instanceof EtcdLeaseInvalidError)) throw error;
    }
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), Math.max(0, delayMs));
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (!this.#keepingAlive) return;
    let next = this.ttlMs / 3;
    try {
      const { alive } = await this.keepAlive();
      if (!alive) return;
    } catch {
      next = Math.min(KEEPALIVE_RETRY_MS, this.ttlMs / 6);
    }
    if (this.#keepingAlive) this.#schedule(next);
  }
}
