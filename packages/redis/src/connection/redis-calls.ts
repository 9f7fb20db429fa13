import type { EventEmitter } from "node:events";
import { BackendUnavailableError } from "@distlock/core";
import { CallDeadlines, type CallOutcomes } from "@distlock/core/internal";
import type { Cluster, Redis } from "ioredis";
import type { RedisScript, ScriptTarget } from "../scripts/redis-script.js";
import { type ChannelListener, ReleaseSubscriber } from "../waiting/release-subscriber.js";
import { LastConnectionError } from "./last-connection-error.js";
import type { RespConnection } from "./resp-connection.js";

/** The calls a driver makes on its command connection: ioredis's, or the lean `RespConnection`. */
export interface RedisCommands extends ScriptTarget {
  wait(replicas: number, timeoutMs: number): Promise<unknown>;
}

/** The connections one provider's drivers call through (a `RedisLockDriverConfig` is one). */
export interface RedisCallsConfig {
  /** Pub/sub comes from its duplicates; it also carries the script calls unless `commands` does. */
  readonly client: Redis | Cluster;
  /** A lean connection made for the script calls (owned, as `client` is when `ownsClient`). */
  readonly commands?: RespConnection | undefined;
  readonly ownsClient: boolean;
  readonly settings: { readonly commandTimeoutMs: number; readonly unsubscribeDelayMs: number };
  /** Where the client points, credentials masked, for messages. */
  readonly target: string;
}

/** One script call as it was sent (for a resend after NOSCRIPT), with what it serves. */
export interface ScriptCall<R> {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  readonly request: R;
}

/**
 * The plumbing every Redis server call goes through, for the lock and the semaphore drivers alike: script calls on the
 * lean connection or on ioredis, each bounded by `commandTimeoutMs`; release channels on pub/sub; and failures as
 * `BackendUnavailableError`s that say what the connection last saw.
 */
export class RedisCalls {
  /** Where script calls go: the lean connection when there is one, else ioredis. */
  readonly connection: RedisCommands;
  readonly #config: RedisCallsConfig;
  readonly #subscriber: ReleaseSubscriber;
  readonly #connectionErrors = new LastConnectionError();
  readonly #deadlines = new CallDeadlines();
  readonly #anyOutcomes: CallOutcomes<unknown, unknown, string>;
  #connects = 0;
  readonly #onReady = (): void => {
    this.#connects++;
  };

  constructor(config: RedisCallsConfig) {
    this.#config = config;
    this.connection = config.commands ?? (config.client as unknown as RedisCommands);
    (this.connection as unknown as EventEmitter).on("ready", this.#onReady);
    // The client connects too once `list` scans on it, so its errors are tracked even when the lean connection carries the calls.
    if (config.ownsClient) for (const connection of [config.commands, config.client]) if (connection !== undefined) this.#connectionErrors.track(connection);
    this.#subscriber = new ReleaseSubscriber({
      connect: () => this.#connectionErrors.track(config.client.isCluster ? (config.client as Cluster).duplicate() : (config.client as Redis).duplicate()),
      bound: (operation, call) => this.bound(operation, call),
      unsubscribeDelayMs: config.settings.unsubscribeDelayMs,
    });
    this.#anyOutcomes = {
      value: (reply) => reply,
      error: (error, operation) => this.failure(operation, error),
      timedOut: (timeoutMs, operation) => this.#timedOut(operation, timeoutMs),
    };
  }

  /**
   * How many times the command connection has become ready. Two calls that see the same count went over one
   * connection: what `WAIT` answers speaks only for the writes of the connection it runs on.
   */
  get connects(): number {
    return this.#connects;
  }

  /** True while this process listens on any channel: callers ask it first, to build no channel name while none is subscribed. */
  get listening(): boolean {
    return this.#subscriber.channelCount > 0;
  }

  /** True while this process listens on `channel`. */
  isListening(channel: string): boolean {
    return this.#subscriber.isSubscribed(channel);
  }

  /** Listens on a release channel; resolves once subscribed with the function that stops listening. */
  readonly listen = (channel: string, listener: ChannelListener): Promise<() => void> =>
    this.#subscriber.listen(channel, listener).catch((error: unknown) => {
      throw this.failure("subscribe", error);
    });

  /** A script call bounded by `commandTimeoutMs`: on the lean connection, which bounds it itself, when there is one. */
  run(operation: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const lean = this.#config.commands;
    if (lean === undefined || !script.takes(keys)) return this.bound(operation, script.run(this.connection, keys, args));
    return lean.runScript(script, keys, args, this.#config.settings.commandTimeoutMs, this.#anyOutcomes, operation);
  }

  /** A hot-path script call with outcomes made once by its caller (no closures per call), bounded like `run`. */
  runBounded<R, C extends ScriptCall<unknown>>(script: RedisScript, call: C, outcomes: CallOutcomes<unknown, R, C>, sentAt?: number): Promise<R> {
    const timeoutMs = this.#config.settings.commandTimeoutMs;
    const lean = this.#config.commands;
    if (lean !== undefined) return lean.runScript(script, call.keys, call.args, timeoutMs, outcomes, call, sentAt);
    return this.#deadlines.settle(script.send(this.connection, call.keys, call.args), timeoutMs, outcomes, call);
  }

  /** What a hot-path script call does with a failure, a timeout and a lost script; its answer is the caller's. */
  scriptOutcomes<R>(operation: string, script: RedisScript): Omit<CallOutcomes<unknown, R, ScriptCall<unknown>>, "value"> {
    return {
      error: (error) => this.failure(operation, error),
      timedOut: (timeoutMs) => this.#timedOut(operation, timeoutMs),
      retry: (error, call) => script.resend(error, this.connection, call.keys, call.args),
    };
  }

  /** Bounds a server call by `commandTimeoutMs` (plus `extraMs`) and maps its failure to `BackendUnavailableError`. */
  bound<T>(operation: string, call: Promise<T>, extraMs = 0): Promise<T> {
    return this.#deadlines.settle(call, this.#config.settings.commandTimeoutMs + extraMs, this.#anyOutcomes as CallOutcomes<T, T, string>, operation);
  }

  /** `error` as the caller sees it: a `BackendUnavailableError` naming the operation and the server. */
  failure(operation: string, error: unknown): Error {
    if (BackendUnavailableError.is(error)) return error;
    return new BackendUnavailableError("redis", `${operation} on ${this.#config.target} failed: ${this.#connectionErrors.explain(error)}`, { cause: error });
  }

  /** Stops listening, then disconnects at once what this provider created (no QUIT round trip). */
  async close(): Promise<void> {
    (this.connection as unknown as EventEmitter).off("ready", this.#onReady);
    await this.#subscriber.close();
    this.#config.commands?.disconnect();
    if (this.#config.ownsClient) this.#config.client.disconnect();
  }

  #timedOut(operation: string, timeoutMs: number): Error {
    return this.failure(operation, new Error(`no answer within ${timeoutMs} ms`));
  }
}
