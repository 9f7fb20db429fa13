import { Latch } from "@distlock/core/internal";
import type { Etcd3, Watcher } from "etcd3";
import { confirmWatch } from "./confirmed-watch.js";

/**
 * A watch on one key's deletion, opened "from now" (see `confirmWatch`). `fromRevision` is the store revision it was
 * created at: a deletion after that revision is never missed, a deletion before it must be read.
 */
export class DeletionWatch {
  readonly key: Buffer;
  readonly fromRevision: bigint;
  readonly #watcher: Watcher;
  readonly #deleted = new Latch("stays-open");

  private constructor(key: Buffer, watcher: Watcher, fromRevision: bigint) {
    this.key = key;
    this.#watcher = watcher;
    this.fromRevision = fromRevision;
    watcher.on("delete", () => this.#deleted.open());
  }

  /** Opens the watch and waits until etcd confirmed it (bounded by `timeoutMs`). */
  static async open(client: Etcd3, key: Buffer, timeoutMs: number): Promise<DeletionWatch> {
    const watcher = client.watch().key(key).watcher();
    return new DeletionWatch(key, watcher, await confirmWatch(watcher, timeoutMs));
  }

  /** Resolves once the key was deleted (at once if that was already seen), after `timeoutMs`, or on abort; never rejects. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.#deleted.wait(timeoutMs, signal);
  }

  /** Ends a pending `next()`, and every later one at once. */
  close(): void {
    this.#deleted.open();
    this.#watcher.removeAllListeners("delete");
    void this.#watcher.cancel().catch(() => undefined);
  }
}
