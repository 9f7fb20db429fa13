import { BackendUnavailableError, type ReleaseWatch, redactCredentials } from "@distlock/core";
import { type RedisScript, ReleaseSubscriber, type ScriptTarget } from "@distlock/redis";
import type { Redis } from "ioredis";
import { boundedCall } from "./bounded-call.js";

/** One independent Redis master of a Redlock quorum. */
export interface RedlockNodeConfig {
  readonly client: Redis;
  /** True when the node was created from a URL and must close its client. */
  readonly ownsClient: boolean;
  /** `host:port`, without credentials, for messages and per-node outcomes. */
  readonly name: string;
  /** Bound on SUBSCRIBE. */
  readonly subscribeTimeoutMs: number;
  readonly unsubscribeDelayMs: number;
}

/** One master: runs the lock scripts with a per-call bound and keeps one pub/sub connection for release notifications. */
export class RedlockNode {
  readonly name: string;
  readonly #config: RedlockNodeConfig;
  readonly #subscriber: ReleaseSubscriber;
  #lastConnectionError: string | undefined;

  constructor(config: RedlockNodeConfig) {
    this.#config = Object.freeze({ ...config });
    this.name = config.name;
    if (config.ownsClient) this.#trackErrors(config.client);
    this.#subscriber = new ReleaseSubscriber({
      connect: () => this.#trackErrors(config.client.duplicate()),
      bound: (operation, call) => this.#bound(operation, call, config.subscribeTimeoutMs),
      unsubscribeDelayMs: config.unsubscribeDelayMs,
    });
  }

  /** Runs `script`, failing with BACKEND_UNAVAILABLE (naming this node) when it errs; the caller bounds how long it may take. */
  run(operation: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return script.run(this.#config.client as unknown as ScriptTarget, keys, args).catch((error: unknown) => {
      throw this.#failure(operation, error);
    });
  }

  /** The error of a call here that got no answer within `timeoutMs`. */
  timedOut(operation: string, timeoutMs: number): BackendUnavailableError {
    return this.#failure(operation, new Error(`no answer within ${timeoutMs} ms`));
  }

  /** Subscribes to a release channel on this node. */
  watch(channel: string): Promise<ReleaseWatch> {
    return this.#subscriber.watch(channel);
  }

  /** Drops the pub/sub connection and, when the node owns it, the command connection, without a QUIT round trip. */
  async close(): Promise<void> {
    await this.#subscriber.close();
    if (this.#config.ownsClient) this.#config.client.disconnect();
  }

  async #bound<T>(operation: string, call: Promise<T>, timeoutMs: number): Promise<T> {
    try {
      return await boundedCall(call, timeoutMs);
    } catch (error) {
      throw this.#failure(operation, error);
    }
  }

  #failure(operation: string, error: unknown): BackendUnavailableError {
    const message = redactCredentials(error instanceof Error ? error.message : String(error));
    const last =
      this.#lastConnectionError === undefined || message.includes(this.#lastConnectionError) ? "" : ` (last connection error: ${this.#lastConnectionError})`;
    return new BackendUnavailableError("redlock", `${operation} on ${this.name} failed: ${message}${last}`, { cause: error });
  }

  #trackErrors(client: Redis): Redis {
    client.on("error", (error: Error) => {
      this.#lastConnectionError = redactCredentials(error.message);
    });
    client.on("ready", () => {
      this.#lastConnectionError = undefined;
    });
    return client;
  }
}
