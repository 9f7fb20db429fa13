import { LatchedReleaseWatch, type ReleaseWatch } from "@distlock/core/driver";
import type { LockdConnection } from "../connection/lockd-connection.js";
import type { LockdRequest } from "../protocol/lockd-protocol.js";

/** The watches of one key, and the subscription they share. */
interface KeyWatches {
  readonly watches: Set<LatchedReleaseWatch>;
  readonly subscribed: Promise<unknown>;
}

/**
 * The release subscriptions of one connection: one server subscription per key however many waiters watch it, dropped
 * when the last one closes, and restored on every new socket (`subscriptions`).
 */
export class ReleaseWatches {
  readonly #connection: LockdConnection;
  readonly #byKey = new Map<string, KeyWatches>();

  constructor(connection: LockdConnection) {
    this.#connection = connection;
  }

  /** A watch of `key` (as the server names it); resolves once the server has the subscription. */
  async watch(key: string): Promise<ReleaseWatch> {
    let entry = this.#byKey.get(key);
    if (entry === undefined) {
      const created: KeyWatches = { watches: new Set(), subscribed: this.#connection.call({ op: "watch", key }) };
      created.subscribed.catch(() => {
        if (this.#byKey.get(key) === created) this.#byKey.delete(key);
      });
      this.#byKey.set(key, created);
      entry = created;
    }
    const watch: LatchedReleaseWatch = new LatchedReleaseWatch(() => this.#unwatch(key, watch));
    entry.watches.add(watch);
    try {
      await entry.subscribed;
    } catch (error) {
      watch.close();
      throw error;
    }
    return watch;
  }

  /** The requests that restore every subscription on a new socket. */
  subscriptions(): LockdRequest[] {
    return [...this.#byKey.keys()].map((key) => ({ op: "watch", key }));
  }

  /** The server says `key` was released. */
  released(key: string): void {
    for (const watch of this.#byKey.get(key)?.watches ?? []) watch.notify();
  }

  /** The socket closed: any release may have gone unheard, so every waiter tries again. */
  lost(): void {
    for (const { watches } of this.#byKey.values()) for (const watch of watches) watch.notify();
  }

  #unwatch(key: string, watch: LatchedReleaseWatch): void {
    const entry = this.#byKey.get(key);
    if (entry === undefined || !entry.watches.delete(watch) || entry.watches.size > 0) return;
    this.#byKey.delete(key);
    // A new socket would not have the subscription anyway.
    if (this.#connection.connected) this.#connection.call({ op: "unwatch", key }).catch(() => undefined);
  }
}
