import { BackendUnavailableError } from "@distlock/core";
import { CallDeadlines, monotonicNow } from "@distlock/core/internal";
import {
  type ChannelListener,
  LastConnectionError,
  type RedisScript,
  ReleaseSubscriber,
  type RespConnection,
  type ScriptTarget,
  scanNames,
} from "@distlock/redis/internal";
import type { Redis } from "ioredis";

/** One node's answer to a fanned-out call. */
export type NodeReply<T> =
  | { readonly node: RedlockNode; readonly ok: true; readonly value: T }
  | { readonly node: RedlockNode; readonly ok: false; readonly error: unknown };

/** One script call as each node of a fan-out runs it. */
export interface ScriptCall {
  /** Names the call in a failure's message, e.g. "acquire". */
  readonly operation: string;
  readonly script: RedisScript;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** One independent Redis master of a Redlock quorum. */
export interface RedlockNodeConfig {
  /** Pub/sub comes from its duplicates; it also carries the lock calls unless `commands` does. */
  readonly client: Redis;
  /** True when the node was created from a URL and must close its client. */
  readonly ownsClient: boolean;
  /** A lean connection the node made for the lock calls (it then owns it, as it owns `client`). */
  readonly commands?: RespConnection | undefined;
  /** `host:port`, without credentials, for messages and per-node outcomes. */
  readonly name: string;
  /** Bound on SUBSCRIBE. */
  readonly subscribeTimeoutMs: number;
  /** How long a first connection may take: until it is up, calls on it get this long (from the node's creation) instead of their usual bound. */
  readonly connectTimeoutMs: number;
  readonly unsubscribeDelayMs: number;
}

/** One master: runs the lock scripts with a per-call bound and keeps one pub/sub connection for release notifications. */
export class RedlockNode {
  readonly name: string;
  readonly #config: RedlockNodeConfig;
  readonly #subscriber: ReleaseSubscriber;
  /** Where the lock calls go: the lean connection, or the client. */
  readonly #commands: ScriptTarget & { readonly status: string };
  readonly #createdAt = monotonicNow();
  readonly #deadlines = new CallDeadlines();
  readonly #connectionErrors = new LastConnectionError();
  #connected = false;
  #subscriberConnection: Redis | undefined;

  constructor(config: RedlockNodeConfig) {
    this.#config = Object.freeze({ ...config });
    this.name = config.name;
    this.#commands = config.commands ?? (config.client as unknown as ScriptTarget & { readonly status: string });
    // The client connects too once `scan` runs on it, so its errors are tracked even when `commands` carries the lock calls.
    if (config.ownsClient) for (const connection of [config.commands, config.client]) if (connection !== undefined) this.#connectionErrors.track(connection);
    this.#subscriber = new ReleaseSubscriber({
      connect: () => {
        this.#subscriberConnection = this.#connectionErrors.track(config.client.duplicate());
        return this.#subscriberConnection;
      },
      bound: (operation, call) =>
        this.#bound(operation, call, this.#subscriberConnection?.status === "ready" ? config.subscribeTimeoutMs : config.connectTimeoutMs),
      unsubscribeDelayMs: config.unsubscribeDelayMs,
    });
  }

  /**
   * Runs `call`'s script and hands its reply to `done`: an error as BACKEND_UNAVAILABLE naming this node; EVAL after the
   * server answered NOSCRIPT. One promise reaction per answer. The caller bounds how long it may take.
   */
  runScript({ operation, script, keys, args }: ScriptCall, done: (reply: NodeReply<unknown>) => void): void {
    const fail = (error: unknown) => done({ node: this, ok: false, error: this.#failure(operation, error) });
    const answer = (value: unknown) => done({ node: this, ok: true, value });
    script.send(this.#commands, keys, args).then(answer, (error: unknown) => {
      const again = script.resend(error, this.#commands, keys, args);
      if (again === undefined) fail(error);
      else again.then(answer, fail);
    });
  }

  /** Every name here matching `pattern`, walked with SCAN, each page bounded by `pageTimeoutMs`. */
  scan(pattern: string, pageTimeoutMs: number): Promise<Set<string>> {
    const client = this.#config.client;
    return scanNames((cursor, match, count) => this.#bound("list", client.scan(cursor, "MATCH", match, "COUNT", count), pageTimeoutMs), pattern);
  }

  /**
   * How long a call here may take when its usual bound is `timeoutMs`: longer, up to `firstConnectMs` and the
   * connect timeout, only while the node's first connection is still being made, so a provider's first calls on a
   * busy machine do not fail on connection setup.
   */
  answerBoundMs(timeoutMs: number, firstConnectMs: number): number {
    this.#connected ||= this.#commands.status === "ready";
    if (this.#connected) return timeoutMs;
    return Math.max(timeoutMs, Math.min(firstConnectMs, this.#createdAt + this.#config.connectTimeoutMs - monotonicNow()));
  }

  /** The error of a call here that got no answer within `timeoutMs`. */
  timedOut(operation: string, timeoutMs: number): BackendUnavailableError {
    return this.#failure(operation, new Error(`no answer within ${timeoutMs} ms`));
  }

  /** Passes every message of a release channel on this node to `listener` (null after a reconnect) from the moment this resolves; returns the unsubscribe. */
  listen(channel: string, listener: ChannelListener): Promise<() => void> {
    return this.#subscriber.listen(channel, listener);
  }

  /** True while a release channel is subscribed here (someone listens, or did until a moment ago). */
  isListening(channel: string): boolean {
    return this.#subscriber.isSubscribed(channel);
  }

  /** Drops the pub/sub connection and, when the node owns it, the command connection, without a QUIT round trip. */
  async close(): Promise<void> {
    await this.#subscriber.close();
    this.#config.commands?.disconnect();
    if (this.#config.ownsClient) this.#config.client.disconnect();
  }

  async #bound<T>(operation: string, call: Promise<T>, timeoutMs: number): Promise<T> {
    try {
      return await this.#deadlines.bound(call, timeoutMs, () => new Error(`no answer within ${timeoutMs} ms`));
    } catch (error) {
      throw this.#failure(operation, error);
    }
  }

  #failure(operation: string, error: unknown): BackendUnavailableError {
    return new BackendUnavailableError("redlock", `${operation} on ${this.name} failed: ${this.#connectionErrors.explain(error)}`, { cause: error });
  }
}
