import { Latch } from "@distlock/core/driver";
import type { Etcd3, IWatchResponse, Watcher } from "etcd3";

/**
 * A watch on one key's deletion, opened "from now" so etcd keeps it synced (a watch that starts at a
 * past revision is caught up only by etcd's 100 ms sync loop). `fromRevision` is the store revision it
 * was created at: a deletion after that revision is never missed, a deletion before it must be read.
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
    watcher.on("error", () => undefined);
    const confirmed = new Latch("stays-open");
    let watch: DeletionWatch | undefined;
    watcher.once("connected", (response: IWatchResponse) => {
      watch = new DeletionWatch(key, watcher, BigInt(response.header.revision));
      confirmed.open();
    });
    await confirmed.wait(timeoutMs);
    if (watch === undefined) {
      void watcher.cancel().catch(() => undefined);
      throw new Error(`etcd did not confirm a watch within ${timeoutMs} ms`);
    }
    return watch;
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
