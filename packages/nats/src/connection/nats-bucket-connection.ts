import { type JetStreamClient, jetstream } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection, type NodeConnectionOptions } from "@nats-io/transport-node";
import type { ResolvedNatsLockOptions } from "../options/nats-lock-provider-options.js";
import { checkBucketSettings } from "./bucket-settings.js";
import { openBucket } from "./open-bucket.js";
import { ATTEMPT_TIMEOUT_MS } from "./retry-request.js";

/** What a connection tells its owner about. */
export interface NatsConnectionHooks {
  /** The client lost its server or found another: notifications may have been missed meanwhile. */
  interrupted(): void;
}

/** The open client and its bucket. */
export interface OpenBucket {
  readonly connection: NatsConnection;
  readonly js: JetStreamClient;
  readonly kv: KV;
  /** The same bucket, each request bounded by `ATTEMPT_TIMEOUT_MS`: for reads tried again until `commandTimeoutMs`. */
  readonly attemptKv: KV;
  /** The bucket's name. */
  readonly bucket: string;
}

/**
 * One NATS connection and the lock bucket on it, opened on first use (creating the bucket with the wanted settings, or
 * checking the settings of the one there), and again on the next call after opening failed. Every JetStream call on it
 * is bounded by `commandTimeoutMs`. `close()` leaves no socket and no timer behind.
 */
export class NatsBucketConnection {
  readonly #options: ResolvedNatsLockOptions;
  readonly #hooks: NatsConnectionHooks;
  #opening: Promise<OpenBucket> | undefined;
  #closed = false;

  constructor(options: ResolvedNatsLockOptions, hooks: NatsConnectionHooks) {
    this.#options = options;
    this.#hooks = hooks;
  }

  /** The bucket, opening the connection first if needed. */
  bucket(): Promise<OpenBucket> {
    if (this.#closed) return Promise.reject(new Error("the NATS lock provider's connection is closed"));
    if (this.#opening === undefined) {
      const opening = this.#open();
      this.#opening = opening;
      opening.catch(() => {
        if (this.#opening === opening) this.#opening = undefined;
      });
    }
    return this.#opening;
  }

  /** Closes the connection; idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    this.#opening = undefined;
    const open = await opening?.catch(() => undefined);
    await open?.connection.close();
  }

  async #open(): Promise<OpenBucket> {
    const { bucket, replicas, storage, commandTimeoutMs } = this.#options;
    const connection = await connect(this.#connectOptions());
    try {
      if (this.#closed) throw new Error("the NATS lock provider's connection is closed");
      this.#watchStatus(connection);
      const js = jetstream(connection, { timeout: commandTimeoutMs });
      const { kv, info } = await openBucket(connection, js, { bucket, replicas, storage: storage as "file" | "memory", timeoutMs: commandTimeoutMs });
      checkBucketSettings(info, { bucket, replicas, storage });
      const attempts = jetstream(connection, { timeout: Math.min(ATTEMPT_TIMEOUT_MS, commandTimeoutMs), checkAPI: false });
      const attemptKv = await new Kvm(attempts).open(bucket, { allow_direct: false });
      return { connection, js, kv, attemptKv, bucket };
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }

  #connectOptions(): NodeConnectionOptions {
    const { servers, connectTimeoutMs, credentials, tls } = this.#options;
    return {
      servers: [...servers],
      name: "distlock",
      timeout: connectTimeoutMs,
      maxReconnectAttempts: -1,
      // Otherwise every request and its timeout make an Error up front, for a stack trace ours never shows: ~15 % of an acquire's CPU.
      noAsyncTraces: true,
      reconnectTimeWait: 250,
      ...(credentials.kind === "user" ? { user: credentials.user, pass: credentials.pass } : {}),
      ...(credentials.kind === "token" ? { token: credentials.token } : {}),
      ...(tls === undefined ? {} : { tls: { ...tls } }),
    };
  }

  /** Tells the owner of every disconnect and reconnect, until the connection closes. */
  #watchStatus(connection: NatsConnection): void {
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === "disconnect" || status.type === "reconnect") this.#hooks.interrupted();
      }
    })().catch(() => undefined);
  }
}
