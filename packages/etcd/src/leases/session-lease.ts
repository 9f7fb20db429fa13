import type { Etcd3 } from "etcd3";
import { LeaseKeeper, type LeaseKeeperSettings } from "./lease-keeper.js";

/**
 * The provider's shared session lease, granted on first use and kept alive in the background, plus
 * which owner uses which of the session's member keys of each lock key: the first owner gets suffix 0
 * (`<leaseHex>`, Go's own name), further owners of this provider contending for the same key get
 * suffixes 1, 2, ... (`<leaseHex>-<suffix>`).
 */
export class SessionLease {
  readonly ttlMs: number;
  readonly #client: Etcd3;
  readonly #settings: LeaseKeeperSettings;
  readonly #memberLeases = new Map<string, Map<string, number>>();
  #current: LeaseKeeper | undefined;
  #granting: Promise<LeaseKeeper> | undefined;
  #closed = false;

  constructor(client: Etcd3, ttlMs: number, settings: LeaseKeeperSettings) {
    this.#client = client;
    this.ttlMs = ttlMs;
    this.#settings = settings;
  }

  /** The suffix of `ownerSecret` among this provider's member keys of `key`: its existing one, else the lowest free one. */
  claim(key: string, ownerSecret: string): number {
    let owners = this.#memberLeases.get(key);
    if (owners === undefined) {
      owners = new Map<string, number>();
      this.#memberLeases.set(key, owners);
    }
    const existing = owners.get(ownerSecret);
    if (existing !== undefined) return existing;
    let suffix = 0;
    if (owners.size > 0) {
      const taken = new Set(owners.values());
      while (taken.has(suffix)) suffix++;
    }
    owners.set(ownerSecret, suffix);
    return suffix;
  }

  /** Gives the owner's suffix of `key` back. */
  unclaim(key: string, ownerSecret: string): void {
    const owners = this.#memberLeases.get(key);
    owners?.delete(ownerSecret);
    if (owners?.size === 0) this.#memberLeases.delete(key);
  }

  /**
   * The session lease, proven alive for at least half its TTL: granted if there is none (or it was
   * lost), refreshed with a keepalive if its proof is getting old.
   */
  async lease(): Promise<LeaseKeeper> {
    const proven = this.provenLease();
    if (proven !== undefined) return proven;
    const current = this.#current;
    if (current !== undefined && !current.lost) {
      const { alive } = await current.keepAlive();
      if (alive) return current;
    }
    this.#granting ??= this.#grant().finally(() => {
      this.#granting = undefined;
    });
    return this.#granting;
  }

  /** The session lease if it is proven alive for at least half its TTL right now, without asking etcd; else undefined (ask `lease()`). */
  provenLease(): LeaseKeeper | undefined {
    const current = this.#current;
    return current !== undefined && !current.lost && current.provenRemainingMs() > this.ttlMs / 2 ? current : undefined;
  }

  /** Forgets `lease` as the session after etcd refused it, so the next call grants a new one. */
  discard(lease: LeaseKeeper): void {
    if (this.#current !== lease) return;
    lease.stopKeepingAlive();
    this.#current = undefined;
  }

  /** Stops the keepalive and revokes the lease, deleting every key still on it. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#granting;
    const lease = this.#current ?? (await pending?.catch(() => undefined));
    this.#current = undefined;
    await lease?.revoke();
  }

  async #grant(): Promise<LeaseKeeper> {
    this.#current?.stopKeepingAlive();
    const lease = await LeaseKeeper.grant(this.#client, this.ttlMs, this.#settings);
    if (this.#closed) {
      await lease.revoke().catch(() => undefined);
      throw new Error("the provider was closed while its session lease was granted");
    }
    lease.startKeepingAlive();
    this.#current = lease;
    return lease;
  }
}
