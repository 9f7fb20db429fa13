import { EventEmitter } from "node:events";
import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { type CallOutcomes, monotonicNow, SweepTimer } from "@distlock/core/internal";
import { BoundedScriptCall, type ConnectionScript, type PendingReply } from "./bounded-script-call.js";
import { encodeCommand, RedisReplyError, RespDecoder, type RespReply } from "./resp-codec.js";

/** Where and how a `RespConnection` connects. */
export interface RespConnectionOptions {
  readonly host: string;
  readonly port: number;
  /** TLS with this server name, or plain TCP when absent. */
  readonly tls?: { readonly servername: string };
  readonly username?: string;
  readonly password?: string;
  readonly db: number;
  readonly connectTimeoutMs: number;
  /** Pause before reconnect attempt `attempt` (0-based) after the connection dropped or could not be made. */
  readonly reconnectDelayMs: (attempt: number) => number;
}

/**
 * How many commands of one turn share a socket write. One write per command cost the client a syscall each (27 µs per
 * acquire+release at 256 concurrent loops); one write per turn made Redis and the client take turns: 16 and 64 loops over
 * distinct keys ran at 0.72–0.85× redis-semaphore's ops/s, and at 1.24× and 1.47× with 4 per write (interleaved rounds,
 * 23:19 UTC 2026-11-30, `docs/benchmarks/history.md`).
 */
const WRITES_PER_FLUSH = 4;

type Status = "connecting" | "handshaking" | "connected" | "waiting" | "closed";

/**
 * A lean pipelined RESP2 connection to one Redis server for the hot path of a provider that made its own connection:
 * one string written per command, replies decoded once, one promise per call and no other per-call object. It
 * reconnects forever with the caller's backoff. Commands sent while it is down (or not yet authenticated) wait for the
 * next attempt; a failed attempt fails them with its error. A dropped connection fails the calls it had sent (they may or may not have run),
 * and none is ever sent twice. Emits "error" (connection errors, for messages) and "ready".
 * Plain calls have no timeout of their own; `runScript` bounds its call, all such deadlines on one timer.
 */
export class RespConnection extends EventEmitter {
  readonly #options: RespConnectionOptions;
  readonly #decoder = new RespDecoder((reply) => this.#onReply(reply));
  /** Calls whose commands were written, in order; `#head` is the next to be answered. */
  #sent: PendingReply[] = [];
  #head = 0;
  /** Commands waiting for the connection, and their calls. */
  #unsent: string[] = [];
  #unsentCalls: PendingReply[] = [];
  #socket: Socket | undefined;
  #status: Status = "connecting";
  #attempt = 0;
  #lastError: Error | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #deadlines = new SweepTimer((now) => this.#sweep(now));
  /** The socket whose writes are held until the end of this turn or the next flush, when one is. */
  #corked: Socket | undefined;
  /** Commands written into the corked socket since it last flushed. */
  #corkedWrites = 0;
  readonly #uncork = (): void => {
    this.#corked?.uncork();
    this.#corked = undefined;
  };
  /**
   * A turn's first command is written at once, the rest leave `WRITES_PER_FLUSH` to a socket write (the last ones when
   * the turn ends). Holding the first one back stopped the semaphores' permit passes (bench, 21:07 UTC 2026-11-30:
   * requests per acquisition 1.00 → 2.00 at W = 16); holding the whole rest of a turn made Redis wait for the client's
   * whole turn and the client for Redis's whole batch, the two cores taking turns instead of working at once (see
   * `WRITES_PER_FLUSH`).
   */
  readonly #send = (command: string, call: PendingReply): void => {
    if (this.#status === "connected") {
      this.#sent.push(call);
      const socket = this.#socket as Socket;
      if (this.#corked === socket) {
        socket.write(command);
        if (++this.#corkedWrites === WRITES_PER_FLUSH) {
          this.#corkedWrites = 0;
          socket.uncork();
          socket.cork();
        }
        return;
      }
      this.#uncork();
      socket.write(command);
      socket.cork();
      this.#corked = socket;
      this.#corkedWrites = 0;
      process.nextTick(this.#uncork);
    } else {
      this.#unsent.push(command);
      this.#unsentCalls.push(call);
    }
  };

  constructor(options: RespConnectionOptions) {
    super();
    this.#options = options;
    this.#connect();
  }

  /** "ready" once connected (and authenticated), else "connecting", "reconnecting" or "end", as ioredis names them. */
  get status(): string {
    return this.#status === "connected" ? "ready" : this.#status === "waiting" ? "reconnecting" : this.#status === "closed" ? "end" : "connecting";
  }

  evalsha(sha: string, numberOfKeys: number, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#call(encodeCommand("EVALSHA", [sha, numberOfKeys], keys, args));
  }

  eval(lua: string, numberOfKeys: number, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#call(encodeCommand("EVAL", [lua, numberOfKeys], keys, args));
  }

  /**
   * `script` by EVALSHA (EVAL if the server lost it), its reply, failure or silence for `timeoutMs` made the caller's
   * by `outcomes`; a reply after the timeout goes to `outcomes.late`. One promise and one object per call: the hot
   * path's bounded call without a promise around the connection's. A call still unsent at its deadline is never sent.
   * `startedAt`: a clock reading the caller took just before, when it has one.
   */
  runScript<R, C>(
    script: ConnectionScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    timeoutMs: number,
    outcomes: CallOutcomes<unknown, R, C>,
    context: C,
    startedAt = monotonicNow(),
  ): Promise<R> {
    if (this.#status === "closed") return Promise.reject(outcomes.error(new Error("Connection is closed."), context));
    const deadline = startedAt + timeoutMs;
    this.#deadlines.schedule(deadline, timeoutMs / 8);
    return new Promise<R>((resolve, reject) => {
      new BoundedScriptCall({ script, keys, args, deadline, timeoutMs }, outcomes, context, resolve, reject, this.#send);
    });
  }

  wait(replicas: number, timeoutMs: number): Promise<unknown> {
    return this.#call(encodeCommand("WAIT", [replicas, timeoutMs]));
  }

  /** Closes at once: calls not yet answered fail, and it never reconnects. */
  disconnect(): void {
    if (this.#status === "closed") return;
    this.#status = "closed";
    clearTimeout(this.#timer);
    this.#deadlines.stop();
    this.#socket?.destroy();
    this.#failAll(new Error("Connection is closed."));
  }

  #call(command: string): Promise<unknown> {
    if (this.#status === "closed") return Promise.reject(new Error("Connection is closed."));
    return new Promise((resolve, reject) => this.#send(command, { resolve, reject }));
  }

  /**
   * Times out the bounded calls past their deadlines (their replies, if any come, are still read in order), each up to
   * an eighth of its timeout late; answers the earliest deadline left.
   */
  #sweep(now: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (let i = this.#head; i < this.#sent.length; i++) next = Math.min(next, this.#sent[i]?.expireBy?.(now) ?? next);
    for (const call of this.#unsentCalls) next = Math.min(next, call.expireBy?.(now) ?? next);
    return next;
  }

  #connect(): void {
    const { host, port, tls, connectTimeoutMs } = this.#options;
    this.#status = "connecting";
    const socket = tls === undefined ? connectTcp({ host, port }) : connectTls({ host, port, servername: tls.servername });
    this.#socket = socket;
    socket.setNoDelay(true);
    // Until the handshake is answered: a server that accepts and then says nothing is dropped and tried again.
    socket.setTimeout(connectTimeoutMs, () => socket.destroy(Object.assign(new Error("connect ETIMEDOUT"), { code: "ETIMEDOUT" })));
    socket.once(tls === undefined ? "connect" : "secureConnect", () => this.#onConnect(socket));
    socket.on("data", (chunk: Buffer) => {
      try {
        this.#decoder.push(chunk);
      } catch (error) {
        socket.destroy(error as Error);
      }
    });
    socket.on("error", (error: Error) => {
      this.#lastError = error;
      if (this.listenerCount("error") > 0) this.emit("error", error);
    });
    socket.once("close", () => this.#onClose(socket));
  }

  /** Authenticates and selects the database first; what waits is written only once the server accepted both. */
  #onConnect(socket: Socket): void {
    const handshake = this.#handshake();
    if (handshake.length === 0) {
      this.#ready(socket);
      return;
    }
    this.#status = "handshaking";
    let unanswered = handshake.length;
    // A refused AUTH or SELECT drops the connection and fails what waited for it.
    const step: PendingReply = {
      resolve: () => {
        if (--unanswered === 0) this.#ready(socket);
      },
      reject: (error) => socket.destroy(error),
    };
    for (const _ of handshake) this.#sent.push(step);
    socket.write(handshake.join(""));
  }

  #handshake(): string[] {
    const { username, password, db } = this.#options;
    const commands: string[] = [];
    if (password !== undefined) commands.push(encodeCommand("AUTH", username === undefined ? [password] : [username, password]));
    if (db !== 0) commands.push(encodeCommand("SELECT", [db]));
    return commands;
  }

  #ready(socket: Socket): void {
    socket.setTimeout(0);
    this.#status = "connected";
    this.#attempt = 0;
    this.#lastError = undefined;
    const now = monotonicNow();
    const commands: string[] = [];
    this.#unsentCalls.forEach((call, i) => {
      // A bounded call that timed out while it waited is dropped unsent.
      if (call.expireBy !== undefined && call.expireBy(now) === Number.POSITIVE_INFINITY) return;
      this.#sent.push(call);
      commands.push(this.#unsent[i] as string);
    });
    if (commands.length > 0) socket.write(commands.join(""));
    this.#unsent = [];
    this.#unsentCalls = [];
    this.emit("ready");
  }

  #onReply(reply: RespReply): void {
    const call = this.#sent[this.#head];
    if (call === undefined) return;
    this.#sent[this.#head] = undefined as unknown as PendingReply;
    // Drop the answered front now and then, so a connection that is never idle does not grow its list.
    if (++this.#head === this.#sent.length || this.#head >= 1024) {
      this.#sent = this.#sent.slice(this.#head);
      this.#head = 0;
    }
    if (reply instanceof RedisReplyError) call.reject(reply);
    else call.resolve(reply);
  }

  #onClose(socket: Socket): void {
    if (socket !== this.#socket) return;
    this.#decoder.reset();
    const error = this.#lastError ?? new Error("Connection is closed.");
    this.#failSent(error);
    if (this.#status === "closed") return;
    // An attempt that never got ready fails what waited for it; what comes next waits for the next attempt.
    if (this.#status === "connecting" || this.#status === "handshaking") this.#failUnsent(error);
    this.#status = "waiting";
    this.#timer = setTimeout(() => this.#connect(), this.#options.reconnectDelayMs(this.#attempt++));
  }

  #failAll(error: Error): void {
    this.#failSent(error);
    this.#failUnsent(error);
  }

  /** Fails the calls written and not answered: they may or may not have run, and none is sent again. */
  #failSent(error: Error): void {
    const calls = this.#sent.slice(this.#head);
    this.#sent = [];
    this.#head = 0;
    for (const call of calls) call.reject(error);
  }

  #failUnsent(error: Error): void {
    const calls = this.#unsentCalls;
    this.#unsent = [];
    this.#unsentCalls = [];
    for (const call of calls) call.reject(error);
  }
}
