import { connect, type Socket } from "node:net";
import { readJsonLines, writeJsonLine } from "../protocol/json-lines.js";
import type { LockdMessage, LockdPush, LockdReplies, LockdRequest, WireError } from "../protocol/lockd-protocol.js";

/** Where the server is and how long a call may take. */
export interface LockdConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/** What the connection's owner hears about. */
export interface LockdConnectionHooks {
  /** Requests written first on every new socket, before any caller's: they restore the subscriptions. */
  opening(): readonly LockdRequest[];
  /** A message the server pushed. */
  pushed(push: LockdPush): void;
  /** A socket closed: pushes may have been missed. */
  lost(): void;
}

/** The server answered with an error. */
export class LockdServerError extends Error {
  readonly wire: WireError;

  constructor(wire: WireError) {
    super(`lockd refused the request: ${wire.message}`);
    this.name = "LockdServerError";
    this.wire = wire;
  }
}

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** The socket the request went out on, once written. */
  socket: Socket | undefined;
}

/**
 * One TCP connection to lockd, opened on first use and again on the next call after it closed. Requests are pipelined,
 * matched to replies by id; each is bounded by `commandTimeoutMs` (connecting included) unless the caller waits on
 * purpose (a semaphore's line). `close()` leaves no socket and no timer behind.
 */
export class LockdConnection {
  readonly #options: LockdConnectionOptions;
  readonly #hooks: LockdConnectionHooks;
  readonly #pending = new Map<number, Pending>();
  readonly #sockets = new Set<Socket>();
  #nextId = 1;
  #connecting: Promise<Socket> | undefined;
  #closed = false;

  constructor(options: LockdConnectionOptions, hooks: LockdConnectionHooks) {
    this.#options = options;
    this.#hooks = hooks;
  }

  /** Whether a socket is open or opening. */
  get connected(): boolean {
    return this.#sockets.size > 0 && this.#connecting !== undefined;
  }

  /**
   * Sends `request` and resolves with its reply; rejects with the server's error, when the socket closes first, or after
   * `commandTimeoutMs` unless `unbounded` (a wait in a semaphore's line, which its caller's signal ends).
   */
  call<R extends LockdRequest>(request: R, { unbounded = false }: { unbounded?: boolean } = {}): Promise<LockdReplies[R["op"]]> {
    if (this.#closed) return Promise.reject(new Error("the lockd connection is closed"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve: resolve as (result: unknown) => void, reject, timer: undefined, socket: undefined };
      this.#pending.set(id, pending);
      if (!unbounded) {
        const timeoutMs = this.#options.commandTimeoutMs;
        const late = new Error(`lockd did not answer ${request.op} within ${timeoutMs} ms (commandTimeoutMs)`);
        pending.timer = setTimeout(() => this.#settle(id, late), timeoutMs);
      }
      this.#socket().then(
        (socket) => {
          if (this.#pending.get(id) === pending) this.#write(socket, pending, request, id);
        },
        (error: Error) => this.#settle(id, error),
      );
    });
  }

  /** Drops the current socket (its calls fail, the next call reconnects): for when the server's state for it must go. */
  reset(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Fails every call in flight and closes the socket; idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing = [...this.#sockets].map((socket) => new Promise((resolve) => socket.once("close", resolve)));
    this.reset();
    for (const id of [...this.#pending.keys()]) this.#settle(id, new Error("the lockd connection was closed"));
    await Promise.all(closing);
  }

  #socket(): Promise<Socket> {
    if (this.#connecting === undefined) {
      const connecting = this.#connect();
      this.#connecting = connecting;
      connecting.catch(() => {
        if (this.#connecting === connecting) this.#connecting = undefined;
      });
    }
    return this.#connecting;
  }

  #connect(): Promise<Socket> {
    const { host, port, connectTimeoutMs } = this.#options;
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, noDelay: true });
      this.#sockets.add(socket);
      const timer = setTimeout(
        () => socket.destroy(new Error(`could not connect to lockd at ${host}:${port} within ${connectTimeoutMs} ms (connectTimeoutMs)`)),
        connectTimeoutMs,
      );
      socket.once("connect", () => {
        clearTimeout(timer);
        if (this.#closed) {
          socket.destroy();
          return;
        }
        // Written before any caller's request (theirs go out once this promise resolves); their replies are not awaited.
        for (const request of this.#hooks.opening()) this.#write(socket, { resolve: ignore, reject: ignore, timer: undefined, socket }, request);
        resolve(socket);
      });
      socket.on("error", (error) => reject(error));
      socket.once("close", () => {
        clearTimeout(timer);
        reject(new Error(`the connection to lockd at ${host}:${port} closed`));
        this.#lost(socket);
      });
      readJsonLines(socket, (message) => this.#receive(message as LockdMessage));
    });
  }

  /** Writes `request` on `socket` as call `id` (a new one by default), whose reply settles `pending`. */
  #write(socket: Socket, pending: Pending, request: LockdRequest, id = this.#nextId++): void {
    pending.socket = socket;
    this.#pending.set(id, pending);
    writeJsonLine(socket, { id, ...request });
  }

  #lost(socket: Socket): void {
    this.#sockets.delete(socket);
    this.#connecting = undefined;
    const closed = new Error("the connection to lockd closed before it answered");
    for (const [id, pending] of this.#pending) if (pending.socket === socket) this.#settle(id, closed);
    this.#hooks.lost();
  }

  #receive(message: LockdMessage): void {
    if ("event" in message) this.#hooks.pushed(message);
    else if ("error" in message) this.#settle(message.id, new LockdServerError(message.error));
    else this.#settle(message.id, undefined, message.result);
  }

  #settle(id: number, error: Error | undefined, result?: unknown): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (error === undefined) pending.resolve(result);
    else pending.reject(error);
  }
}

function ignore(): void {}
