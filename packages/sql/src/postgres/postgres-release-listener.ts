import type { ReleaseWatch } from "@distlock/core/driver";
import { Latch, MAX_POLL_INTERVAL_MS } from "@distlock/core/internal";
import type { ListenClient } from "../connection/sql-connection.js";

/** How long a new watch waits for the listening connection before it relies on short fallback timeouts. */
const CONNECT_GRACE_MS = 1_000;

interface KeyWatch {
  /** Whose turn this watch waits for (see `waiterTag`). */
  readonly tag: string;
  readonly released: Latch;
}

/**
 * One LISTEN connection per provider, fanned out to per-key watches. A notification's payload is
 * `<tag>:<key>`: a release names the waiter whose turn it is by its tag, so only that watch wakes; an empty tag
 * (forceRelease) wakes every watch of the key. A notification is latched until the
 * watch's next `next()`, so a release between a failed attempt and the wait is not lost. While the
 * connection is down every watch is woken and waits at most `MAX_POLL_INTERVAL_MS`, and a reconnect
 * wakes them all again for the releases they may have missed.
 */
export class PostgresReleaseListener {
  readonly #open: () => Promise<ListenClient>;
  readonly #channel: string;
  readonly #watches = new Map<string, Set<KeyWatch>>();
  readonly #released = new WeakSet<ListenClient>();
  #client: ListenClient | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;

  constructor(open: () => Promise<ListenClient>, channel: string) {
    this.#open = open;
    this.#channel = channel;
  }

  /** Subscribes to releases of `key` that are `tag`'s turn; resolves once LISTEN is in place (or after a short grace if it cannot be). */
  async watch(key: string, tag: string): Promise<ReleaseWatch> {
    const state: KeyWatch = { tag, released: new Latch("spent-by-wait") };
    const watches = this.#watches.get(key) ?? new Set();
    this.#watches.set(key, watches);
    watches.add(state);
    const connected = new Latch();
    void this.#connect().then(() => connected.open());
    await connected.wait(CONNECT_GRACE_MS);
    return {
      next: (timeoutMs, signal) => this.#next(state, timeoutMs, signal),
      close: () => {
        watches.delete(state);
        if (watches.size === 0 && this.#watches.get(key) === watches) this.#watches.delete(key);
      },
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting;
    this.#drop(this.#client);
  }

  #next(state: KeyWatch, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#client === undefined) void this.#connect();
    const bound = this.#client === undefined ? Math.min(timeoutMs, MAX_POLL_INTERVAL_MS) : timeoutMs;
    return state.released.wait(bound, signal);
  }

  #connect(): Promise<void> {
    if (this.#client !== undefined || this.#closed) return Promise.resolve();
    this.#connecting ??= this.#listen().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #listen(): Promise<void> {
    let listening: ListenClient | undefined;
    try {
      listening = await this.#open();
      const { client } = listening;
      const lost = () => this.#drop(listening);
      client.on("error", lost);
      client.on("end", lost);
      client.on("notification", (message) => {
        if (message.channel === this.#channel && message.payload !== undefined) this.#announced(message.payload);
      });
      await client.query(`LISTEN "${this.#channel}"`);
      if (this.#closed) return this.#drop(listening);
      this.#client = listening;
      this.#wake(this.#everyWatch());
    } catch {
      this.#drop(listening);
    }
  }

  #drop(listening: ListenClient | undefined): void {
    if (listening === undefined || this.#released.has(listening)) return;
    this.#released.add(listening);
    if (this.#client === listening) this.#client = undefined;
    listening.release(true);
    this.#wake(this.#everyWatch());
  }

  #announced(payload: string): void {
    const separator = payload.indexOf(":");
    const tag = payload.slice(0, separator);
    const watches = this.#watches.get(payload.slice(separator + 1));
    if (watches !== undefined) this.#wake(tag === "" ? watches : [...watches].filter((watch) => watch.tag === tag));
  }

  #everyWatch(): KeyWatch[] {
    return [...this.#watches.values()].flatMap((set) => [...set]);
  }

  #wake(watches: Iterable<KeyWatch> | undefined): void {
    for (const watch of watches ?? []) watch.released.open();
  }
}
