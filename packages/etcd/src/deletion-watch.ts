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
  #deleted = false;
  #wake: (() => void) | undefined;

  private constructor(key: Buffer, watcher: Watcher, fromRevision: bigint) {
    this.key = key;
    this.#watcher = watcher;
    this.fromRevision = fromRevision;
    watcher.on("delete", () => {
      this.#deleted = true;
      this.#wake?.();
    });
  }

  /** Opens the watch and waits until etcd confirmed it (bounded by `timeoutMs`). */
  static open(client: Etcd3, key: Buffer, timeoutMs: number): Promise<DeletionWatch> {
    const watcher = client.watch().key(key).watcher();
    watcher.on("error", () => undefined);
    return new Promise<DeletionWatch>((resolve, reject) => {
      const timer = setTimeout(() => {
        void watcher.cancel().catch(() => undefined);
        reject(new Error(`etcd did not confirm a watch within ${timeoutMs} ms`));
      }, timeoutMs);
      watcher.once("connected", (response: IWatchResponse) => {
        clearTimeout(timer);
        const watch = new DeletionWatch(key, watcher, BigInt(response.header.revision));
        resolve(watch);
      });
    });
  }

  /** Resolves once the key was deleted (at once if that was already seen), after `timeoutMs`, or on abort; never rejects. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#deleted || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      signal.addEventListener("abort", done, { once: true });
      this.#wake = done;
    });
  }

  close(): void {
    this.#wake?.();
    this.#watcher.removeAllListeners("delete");
    void this.#watcher.cancel().catch(() => undefined);
  }
}
