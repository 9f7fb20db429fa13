import { acquireObserved, observeAcquire } from "../diagnostics/observe-acquire.js";
import { MAX_READERS } from "../options/defaults.js";
import { validateReadWriteOptions } from "../options/validate-read-write.js";
import { currentOwnerSecret } from "../owner/owner-context.js";
import type { Permit, PermitAcquireOptions, ReadWriteAccess, ReadWriteAcquireOptions, ReadWriteHold, ReadWriteMode, Semaphore } from "../types.js";
import type { OwnerGrants } from "./owner-grants.js";
import { ReadWriteHandle } from "./read-write-handle.js";

/** What the read-write locks of one provider share. */
export interface ReadWriteRuntime {
  readonly backend: string;
  /** The grants held here, by lock and owner scope. */
  readonly grants: OwnerGrants;
  /** Throws `ProviderClosedError` once the provider is closed. */
  assertOpen(): void;
}

/**
 * One side of a read-write lock over its semaphore: a reader asks for 1 permit, a writer for all `MAX_READERS`, so the
 * semaphore's all-or-nothing grants keep a writer alone and its strict FIFO line keeps later readers behind a waiting
 * writer. An acquire in an owner scope that holds the lock re-enters its grant without a server call.
 */
export class ReadWriteSide implements ReadWriteAccess {
  readonly mode: ReadWriteMode;
  readonly #name: string;
  readonly #semaphore: Semaphore;
  readonly #runtime: ReadWriteRuntime;

  constructor(name: string, mode: ReadWriteMode, semaphore: Semaphore, runtime: ReadWriteRuntime) {
    this.mode = mode;
    this.#name = name;
    this.#semaphore = semaphore;
    this.#runtime = runtime;
  }

  acquire(options?: ReadWriteAcquireOptions): Promise<ReadWriteHold> {
    return this.#take("acquire", options, (permitOptions) => this.#semaphore.acquire(permitOptions)) as Promise<ReadWriteHold>;
  }

  tryAcquire(options?: ReadWriteAcquireOptions): Promise<ReadWriteHold | null> {
    return this.#take("tryAcquire", options, (permitOptions) => this.#semaphore.tryAcquire(permitOptions));
  }

  async #take(
    operation: "acquire" | "tryAcquire",
    options: ReadWriteAcquireOptions | undefined,
    ask: (options: PermitAcquireOptions) => Promise<Permit | null>,
  ): Promise<ReadWriteHold | null> {
    const settings = validateReadWriteOptions(options);
    this.#runtime.assertOpen();
    settings.signal?.throwIfAborted();
    const scope = currentOwnerSecret();
    const held = scope === undefined ? undefined : this.#runtime.grants.reentry(this.#name, scope, this.mode);
    if (held !== undefined) {
      // No server call, so the semaphore's machinery publishes nothing: the re-entry is published here, as a lock's is.
      const reenter = async () => new ReadWriteHandle(this.#name, this.mode, held);
      return acquireObserved() ? observeAcquire(this.#runtime.backend, this.#semaphore.name, operation, settings, reenter) : reenter();
    }
    const permit = await ask({ ...settings, count: this.mode === "write" ? MAX_READERS : 1 });
    if (permit === null) return null;
    return new ReadWriteHandle(this.#name, this.mode, this.#runtime.grants.add(this.#name, scope, permit, this.mode === "write"));
  }
}
