import { randomBytes } from "node:crypto";
import { monotonicNow } from "@distlock/core/internal";
import type { ChannelListener } from "../waiting/release-subscriber.js";

/** How many names `SemaphoreWaiters` remembers before it forgets those whose linger ended. */
const REMEMBERED_NAMES = 1024;

/** Subscribes to a channel; resolves once subscribed (see `ReleaseSubscriber.listen`). */
export type Subscribe = (channel: string, listener: ChannelListener) => Promise<unknown>;

/**
 * The semaphore waiters of one driver, found by waiter id. The scripts tell a waiter its grant on its driver's own
 * channel (subscribed on the first wait, kept until the subscriber closes), so a grant reaches one process only and
 * is handed to one listener; a release by this driver hands over grants to its own waiters from its reply.
 */
export class SemaphoreWaiters {
  /** The channel the scripts publish this driver's waiters' grants on. */
  readonly channel: string;
  readonly #clientId = randomBytes(12).toString("base64url");
  readonly #subscribe: Subscribe;
  readonly #listeners = new Map<string, ChannelListener>();
  /** How many waiters wait on each semaphore name. */
  readonly #waiting = new Map<string, number>();
  /** When the last waiter on a name stopped waiting, for `lingerMs`. */
  readonly #lastWaited = new Map<string, number>();
  readonly #lingerMs: number;
  #subscribed: Promise<unknown> | undefined;
  #lastId = 0;

  /** `channelPrefix` + a random client id names the channel; a name counts as waited on until `lingerMs` after its last waiter. */
  constructor(channelPrefix: string, subscribe: Subscribe, lingerMs: number) {
    this.channel = `${channelPrefix}${this.#clientId}`;
    this.#subscribe = subscribe;
    this.#lingerMs = lingerMs;
  }

  /** A waiter id no other client uses: the client id and a counter. */
  newWaiterId(): string {
    this.#lastId += 1;
    return `${this.#clientId}.${this.#lastId.toString(36)}`;
  }

  /** True while a waiter of this driver waits on `name`, or did until less than `lingerMs` ago. */
  isWaiting(name: string): boolean {
    if (this.#waiting.has(name)) return true;
    const last = this.#lastWaited.get(name);
    if (last === undefined) return false;
    if (monotonicNow() - last < this.#lingerMs) return true;
    this.#lastWaited.delete(name);
    return false;
  }

  /** Hands `waiterId`'s grants (and `null` after a reconnect) to `listener` from the moment this resolves; returns the unsubscribe. */
  async listen(name: string, waiterId: string, listener: ChannelListener): Promise<() => void> {
    this.#listeners.set(waiterId, listener);
    this.#waiting.set(name, (this.#waiting.get(name) ?? 0) + 1);
    let listening = true;
    const stop = () => {
      if (!listening) return;
      listening = false;
      this.#listeners.delete(waiterId);
      const left = (this.#waiting.get(name) ?? 1) - 1;
      if (left > 0) {
        this.#waiting.set(name, left);
        return;
      }
      this.#waiting.delete(name);
      this.#remember(name);
    };
    this.#subscribed ??= this.#subscribeOnce();
    try {
      await this.#subscribed;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** Hands a grant message ("<waiter id> <token> <ttl ms>") to its waiter, if it still listens; `null` goes to every waiter. */
  deliver(message: string | null): void {
    if (message === null) {
      for (const listener of [...this.#listeners.values()]) listener(null);
      return;
    }
    this.#listeners.get(message.slice(0, message.indexOf(" ")))?.(message);
  }

  /** Notes that `name` was waited on just now, forgetting names whose linger ended once many are remembered. */
  #remember(name: string): void {
    const now = monotonicNow();
    this.#lastWaited.delete(name);
    this.#lastWaited.set(name, now);
    // Oldest first (re-inserted on each update): forget from the front while the linger has ended.
    if (this.#lastWaited.size <= REMEMBERED_NAMES) return;
    for (const [old, at] of this.#lastWaited) {
      if (now - at < this.#lingerMs) break;
      this.#lastWaited.delete(old);
    }
  }

  #subscribeOnce(): Promise<unknown> {
    return this.#subscribe(this.channel, (message) => this.deliver(message)).catch((error: unknown) => {
      // The next waiter subscribes again.
      this.#subscribed = undefined;
      throw error;
    });
  }
}
