import type { Cluster, Redis } from "ioredis";

/** Sees each message published on a channel; `null` when the connection came back and messages may have been missed. */
export type ChannelListener = (message: string | null) => void;

interface Channel {
  readonly listeners: Set<ChannelListener>;
  /** Settles once SUBSCRIBE was acknowledged. */
  readonly subscribed: Promise<void>;
  idleTimer: NodeJS.Timeout | undefined;
}

/** How the subscriber connection is made and how long its calls may take. */
export interface ReleaseSubscriberConfig {
  /** Creates the dedicated pub/sub connection, on first use. */
  readonly connect: () => Redis | Cluster;
  /** Bound on SUBSCRIBE; the caller maps the rejection. */
  readonly bound: <T>(operation: string, call: Promise<T>) => Promise<T>;
  /** How long a channel stays subscribed without watchers. */
  readonly unsubscribeDelayMs: number;
}

/**
 * One pub/sub connection per provider, multiplexing the release channels of every key waited on,
 * reference-counted per channel; a channel's subscription lingers a little after its last waiter left.
 */
export class ReleaseSubscriber {
  readonly #config: ReleaseSubscriberConfig;
  readonly #channels = new Map<string, Channel>();
  #connection: Redis | Cluster | undefined;
  #closed = false;

  constructor(config: ReleaseSubscriberConfig) {
    this.#config = Object.freeze({ ...config });
  }

  /** Passes every message of `channel` to `listener` from the moment this resolves; returns the (idempotent) unsubscribe. */
  async listen(channel: string, listener: ChannelListener): Promise<() => void> {
    if (this.#closed) throw new Error("the release subscriber is closed");
    const entry = this.#channels.get(channel) ?? this.#subscribe(channel);
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    const own = (message: string | null) => listener(message);
    entry.listeners.add(own);
    const stop = () => this.#leave(channel, entry, own);
    try {
      await entry.subscribed;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** True while `channel` is subscribed (or being subscribed): someone listens, or did until a moment ago. */
  isSubscribed(channel: string): boolean {
    return this.#channels.has(channel);
  }

  /** Number of channels currently subscribed (or being subscribed). */
  get channelCount(): number {
    return this.#channels.size;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = [...this.#channels.values()].flatMap((entry) => {
      clearTimeout(entry.idleTimer);
      return [...entry.listeners];
    });
    this.#channels.clear();
    for (const listener of listeners) listener(null);
    this.#connection?.disconnect();
    this.#connection = undefined;
  }

  /** After a reconnect, releases published while the connection was down are unknown: let every waiter retry once. */
  #notifyAll(): void {
    for (const entry of this.#channels.values()) for (const listener of [...entry.listeners]) listener(null);
  }

  #subscribe(channel: string): Channel {
    const connection = this.#connect();
    const subscribed = this.#config.bound("subscribe", connection.subscribe(channel)).then(() => undefined);
    const entry: Channel = { listeners: new Set(), subscribed, idleTimer: undefined };
    this.#channels.set(channel, entry);
    subscribed.catch(() => {
      if (this.#channels.get(channel) === entry) this.#channels.delete(channel);
    });
    return entry;
  }

  #leave(channel: string, entry: Channel, listener: ChannelListener): void {
    if (!entry.listeners.delete(listener) || entry.listeners.size > 0 || this.#channels.get(channel) !== entry) return;
    const drop = () => {
      if (this.#channels.get(channel) !== entry || entry.listeners.size > 0) return;
      this.#channels.delete(channel);
      this.#connection?.unsubscribe(channel).catch(() => undefined);
    };
    if (this.#config.unsubscribeDelayMs === 0) {
      drop();
      return;
    }
    entry.idleTimer = setTimeout(drop, this.#config.unsubscribeDelayMs);
    entry.idleTimer.unref();
  }

  #connect(): Redis | Cluster {
    if (this.#connection !== undefined) return this.#connection;
    const connection = this.#config.connect();
    connection.on("message", (channel: string, message: string) => {
      for (const listener of [...(this.#channels.get(channel)?.listeners ?? [])]) listener(message);
    });
    let connectedBefore = false;
    connection.on("ready", () => {
      if (connectedBefore) this.#notifyAll();
      connectedBefore = true;
    });
    this.#connection = connection;
    return connection;
  }
}
