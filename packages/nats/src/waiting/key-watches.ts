import { LatchedReleaseWatch, type ReleaseWatch } from "@distlock/core/driver";
import { type KvEntry, KvWatchInclude } from "@nats-io/kv";
import type { NatsBucketConnection } from "../connection/nats-bucket-connection.js";
import { retryRequest } from "../connection/retry-request.js";

/**
 * How long a key's watch outlives its last waiter: a process that waits for a key again soon (a worker that loops on
 * it) reuses the consumer instead of creating another, which takes several round trips.
 */
const LINGER_MS = 10_000;

interface KeyWatch {
  readonly latches: Set<LatchedReleaseWatch>;
  /** Stops the watch once it has lingered unused; cleared when a waiter comes back. */
  linger?: NodeJS.Timeout;
  /** The last write of the key the watch delivered. */
  latest?: KvEntry;
  /** Resolves once the bucket's watcher for the key exists on the server; to `stop` it. */
  readonly started: Promise<() => void>;
}

/**
 * Waiters hear of a key's changes from a KV watch on that key: one JetStream ordered consumer per key and process,
 * shared by the process's waiters on it, delivering only writes made after it started, with their values (the last
 * one is kept for `latest`). The watch delivers a write once
 * the stream has stored it, so the attempt a notification wakes reads that write or a later one; a notification on
 * every write (not only deletes) costs a refused attempt now and then, never a missed release.
 */
export class KeyWatches {
  readonly #connection: NatsBucketConnection;
  readonly #commandTimeoutMs: number;
  readonly #byKey = new Map<string, KeyWatch>();

  /** `commandTimeoutMs` bounds the start of a watch, all its tries together. */
  constructor(connection: NatsBucketConnection, commandTimeoutMs: number) {
    this.#connection = connection;
    this.#commandTimeoutMs = commandTimeoutMs;
  }

  /** One latched watch of every key of `bucketKeys`, resolved once the server delivers their writes. */
  async watch(...bucketKeys: string[]): Promise<ReleaseWatch> {
    const latch = new LatchedReleaseWatch(() => {
      for (const bucketKey of bucketKeys) this.#unwatch(bucketKey, latch);
    });
    const entries = bucketKeys.map((bucketKey) => this.#entry(bucketKey));
    for (const entry of entries) entry.latches.add(latch);
    try {
      await Promise.all(entries.map((entry) => entry.started));
    } catch (error) {
      latch.close();
      throw error;
    }
    return latch;
  }

  #entry(bucketKey: string): KeyWatch {
    const existing = this.#byKey.get(bucketKey);
    if (existing !== undefined) {
      clearTimeout(existing.linger);
      existing.linger = undefined;
      return existing;
    }
    const created: KeyWatch = { latches: new Set(), started: this.#start(bucketKey, () => created) };
    this.#byKey.set(bucketKey, created);
    created.started.catch(() => {
      if (this.#byKey.get(bucketKey) === created) this.#byKey.delete(bucketKey);
    });
    return created;
  }

  /**
   * The last write of `bucketKey` a running watch delivered, in stream order: a waiter that woke on it reads it here
   * instead of asking the server (undefined before the first delivery).
   */
  latest(bucketKey: string): KvEntry | undefined {
    return this.#byKey.get(bucketKey)?.latest;
  }

  /** The connection was interrupted: a write may have gone unheard, so every waiter tries again. */
  interrupted(): void {
    for (const { latches } of this.#byKey.values()) for (const latch of latches) latch.notify();
  }

  async #start(bucketKey: string, self: () => KeyWatch): Promise<() => void> {
    const { attemptKv } = await this.#connection.bucket();
    // Started in short tries, like every read: a waiter that starts while the stream elects a leader finds the new one.
    const updates = await retryRequest(this.#commandTimeoutMs, () => attemptKv.watch({ key: bucketKey, include: KvWatchInclude.UpdatesOnly }));
    void (async () => {
      for await (const entry of updates) {
        const watch = self();
        watch.latest = entry;
        for (const latch of watch.latches) latch.notify();
      }
    })().catch(() => undefined);
    return () => updates.stop();
  }

  #unwatch(bucketKey: string, latch: LatchedReleaseWatch): void {
    const entry = this.#byKey.get(bucketKey);
    if (entry === undefined || !entry.latches.delete(latch) || entry.latches.size > 0) return;
    entry.linger = setTimeout(() => {
      if (this.#byKey.get(bucketKey) !== entry || entry.latches.size > 0) return;
      this.#byKey.delete(bucketKey);
      entry.started.then((stop) => stop()).catch(() => undefined);
    }, LINGER_MS);
    // A lingering watch never keeps the process alive; close() stops it anyway.
    entry.linger.unref();
  }

  /** Stops every watch. */
  close(): void {
    for (const [bucketKey, entry] of this.#byKey) {
      this.#byKey.delete(bucketKey);
      clearTimeout(entry.linger);
      entry.started.then((stop) => stop()).catch(() => undefined);
    }
  }
}
