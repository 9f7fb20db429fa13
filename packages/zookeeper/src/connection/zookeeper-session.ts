import { setMaxListeners } from "node:events";
import zookeeper, { type Client } from "node-zookeeper-client";
import { LineViews } from "./line-views.js";
import { PendingCalls } from "./pending-calls.js";
import { type Callback, type CallOptions, type CallScope, SessionCall } from "./session-call.js";
import { SessionLostError } from "./session-lost-error.js";
import { WireClient } from "./wire-client.js";

/** What a session needs to know. */
export interface SessionSettings {
  /** `h1:p1,h2:p2`, no chroot: paths are made whole by the callers. */
  readonly connectString: string;
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/**
 * The server counts a session's timeout on its own clock, from the last packet it received; we count from the moment we
 * sent a request it answered, which is earlier. The factor allows the server's clock to run up to 1 % fast.
 */
const CLOCK_RATE_ALLOWANCE = 0.99;
/** How long a closing session waits for the server to confirm before its socket is destroyed. */
const CLOSE_GRACE_MS = 1_000;

const NO_OPTIONS: CallOptions = Object.freeze({});

/**
 * One ZooKeeper session on its own client. `lost` aborts when the session expired, or when the session can no longer be
 * proven alive: no request sent more than `sessionTimeout` (× {@link CLOCK_RATE_ALLOWANCE}) ago was answered, judged on
 * the monotonic clock. Until then the server cannot have expired it, so its ephemeral nodes, and the holds they are,
 * stand; from then on another session may be granted them. A lost session is closed and never used again.
 */
export class ZooKeeperSession {
  readonly lost: AbortSignal;
  /** The lines of lock paths this session takes over and over, kept by watches instead of read at every take. */
  readonly lines: LineViews;
  /** Resolves once the session is established, with the timeout the server granted. */
  readonly ready: Promise<number>;
  readonly #settings: SessionSettings;
  readonly #client: Client;
  readonly #wire: WireClient;
  readonly #lost = new AbortController();
  #timeoutMs: number;
  #established = false;
  /** `performance.now()` at sending the latest request the server answered: it had the session alive after this. */
  #confirmedAt: number;
  #disconnectedAt: number | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closed: Promise<void> | undefined;
  /** The calls waiting for an answer: one timer bounds them all, and the session's loss ends them. */
  readonly #pending = new PendingCalls();
  /** What every call of this session shares. */
  readonly #calls: CallScope;

  constructor(settings: SessionSettings) {
    this.#settings = settings;
    this.#timeoutMs = settings.sessionTimeoutMs;
    this.lost = this.#lost.signal;
    // Every call in flight and every hold's grant listens to it: many at once is normal.
    setMaxListeners(0, this.lost);
    this.lost.addEventListener("abort", () => this.#pending.loseAll(this.lost.reason));
    this.#client = zookeeper.createClient(settings.connectString, { sessionTimeout: settings.sessionTimeoutMs, spinDelay: 50, retries: 0 });
    this.#wire = new WireClient(this.#client);
    this.lines = new LineViews(this.#wire);
    this.#calls = {
      client: this.#client,
      pending: this.#pending,
      commandTimeoutMs: settings.commandTimeoutMs,
      confirm: (sentAt) => this.#confirm(sentAt),
      abandon: (reason) => this.abandon(reason),
    };
    this.#confirmedAt = performance.now();
    this.ready = this.#connect();
    // A caller that never uses the session must not see an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** True once the session was established (`ready` resolved). */
  get established(): boolean {
    return this.#established;
  }

  /** The session timeout the server granted (the requested one until connected). */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * One request, bounded by `commandTimeoutMs` and by the session's loss. An answer from the server (a result or a
   * server error such as NO_NODE) confirms the session alive as of the moment the request was sent. A request cut off
   * by a lost connection is sent again once the client has reconnected to the session when `retryOnLoss` (reads, and
   * writes on a version, whose callers read again on BAD_VERSION). A write that goes unanswered with `abandonIfUnanswered`
   * gives the session up: whether it happened is unknown, so nothing it might have created may outlive it.
   */
  call<T>(operation: string, start: (callback: Callback<T>) => void, options: CallOptions = NO_OPTIONS): Promise<T> {
    if (this.lost.aborted) return Promise.reject(this.lost.reason);
    return new Promise<T>((resolve, reject) => new SessionCall(this.#calls, operation, start, options, resolve, reject).send());
  }

  /**
   * Runs `send`, which starts several calls, so that their requests leave in one write: node-zookeeper-client writes
   * each request to its socket as it is queued, one system call and one TCP segment each.
   */
  batch<T>(send: () => T): T {
    const socket = this.#socket();
    socket?.cork();
    try {
      return send();
    } finally {
      socket?.uncork();
    }
  }

  /** The client, for the calls `call` starts. */
  get client(): Client {
    return this.#client;
  }

  /** The requests of every grant and release, sent on the client's connection without its records. */
  get wire(): WireClient {
    return this.#wire;
  }

  /** Gives the session up: `lost` aborts with `reason`, and the session is closed (its ephemeral nodes deleted). */
  abandon(reason: string): void {
    if (!this.lost.aborted) this.#lost.abort(new SessionLostError(`ZooKeeper session lost: ${reason}`));
    void this.close();
  }

  /** Closes the session; the server deletes its ephemeral nodes. Idempotent; leaves no socket or timer behind. */
  close(): Promise<void> {
    if (this.#closed !== undefined) return this.#closed;
    clearTimeout(this.#deadline);
    clearInterval(this.#heartbeat);
    if (!this.lost.aborted) this.#lost.abort(new SessionLostError("ZooKeeper session closed"));
    this.#closed = new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(grace);
        this.#destroySocket();
        resolve();
      };
      const grace = setTimeout(done, CLOSE_GRACE_MS);
      this.#client.once("disconnected", done);
      try {
        this.#client.close();
      } catch {
        done();
      }
    });
    return this.#closed;
  }

  #connect(): Promise<number> {
    const requestedAt = performance.now();
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        const reason = `no session within ${this.#settings.connectTimeoutMs} ms (connectTimeoutMs) from ${this.#settings.connectString}`;
        this.abandon(reason);
        reject(new SessionLostError(reason));
      }, this.#settings.connectTimeoutMs);
      this.lost.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(this.lost.reason);
      });
      this.#client.once("connected", () => {
        clearTimeout(timer);
        const granted = this.#client.getSessionTimeout();
        if (granted > this.#settings.sessionTimeoutMs) {
          const reason = `the server granted a session timeout of ${granted} ms, longer than sessionTimeoutMs (${this.#settings.sessionTimeoutMs}); raise sessionTimeoutMs or lower the server's minSessionTimeout`;
          this.abandon(reason);
          reject(new SessionLostError(reason));
          return;
        }
        this.#timeoutMs = granted;
        this.#established = true;
        this.#confirm(requestedAt);
        this.#heartbeat = setInterval(() => this.#beat(), Math.max(1, Math.floor(granted / 4)));
        this.#heartbeat.unref();
        resolve(granted);
      });
      this.#client.on("state", (state: { getName(): string }) => this.#onState(state.getName()));
      this.#client.connect();
    });
  }

  #onState(name: string): void {
    if (name === "EXPIRED") this.abandon("the server expired it");
    else if (name === "AUTH_FAILED") this.abandon("authentication failed");
    else if (name === "DISCONNECTED") this.#disconnectedAt ??= performance.now();
    else if (name === "SYNC_CONNECTED" && this.#disconnectedAt !== undefined) {
      // The reconnect request left after the disconnect was seen, and the server took it for this session.
      this.#confirm(this.#disconnectedAt);
      this.#disconnectedAt = undefined;
    }
  }

  /** A cheap read that keeps the session confirmed while nothing else is sent. */
  #beat(): void {
    this.call<unknown>("heartbeat", (callback) => this.#client.exists("/", callback), { retryOnLoss: true }).catch(() => undefined);
  }

  #confirm(sentAt: number): void {
    if (this.lost.aborted || sentAt <= this.#confirmedAt) return;
    this.#confirmedAt = sentAt;
    if (this.#deadline === undefined) this.#armDeadline();
  }

  /** Fires when the latest confirmation is a session timeout old; re-arms while newer ones came meanwhile. */
  #armDeadline(): void {
    const due = this.#confirmedAt + this.#timeoutMs * CLOCK_RATE_ALLOWANCE - performance.now();
    this.#deadline = setTimeout(
      () => {
        this.#deadline = undefined;
        if (performance.now() >= this.#confirmedAt + this.#timeoutMs * CLOCK_RATE_ALLOWANCE) {
          this.abandon(`no answer to any request sent in the last ${this.#timeoutMs} ms (the session timeout); the server may have expired it`);
        } else this.#armDeadline();
      },
      Math.max(0, due),
    );
    this.#deadline.unref();
  }

  /** node-zookeeper-client has no close timeout: a server that stopped answering would keep the socket open. */
  #destroySocket(): void {
    this.#socket()?.destroy();
  }

  /** The client's current socket: node-zookeeper-client does not expose it. */
  #socket(): { destroy(): void; cork(): void; uncork(): void } | undefined {
    return (this.#client as unknown as { connectionManager?: { socket?: { destroy(): void; cork(): void; uncork(): void } } }).connectionManager?.socket;
  }
}
