import type { ReadWriteHold, ReadWriteMode } from "../types.js";
import type { SharedGrant } from "./shared-grant.js";

/** One successful acquire of a read-write lock: a hold on its owner's grant, fresh or re-entered. */
export class ReadWriteHandle implements ReadWriteHold {
  readonly name: string;
  readonly mode: ReadWriteMode;
  readonly holdCount: number;
  readonly #grant: SharedGrant;
  #letGo = false;
  #release: Promise<void> | undefined;

  /** Opens one more hold on `grant`. */
  constructor(name: string, mode: ReadWriteMode, grant: SharedGrant) {
    this.name = name;
    this.mode = mode;
    this.#grant = grant;
    this.holdCount = grant.open();
  }

  get holder(): string {
    return this.#grant.permit.holder;
  }

  get fencingToken(): bigint | null {
    return this.#grant.permit.fencingToken;
  }

  get signal(): AbortSignal {
    return this.#grant.permit.signal;
  }

  get validUntil(): number {
    return this.#grant.permit.validUntil;
  }

  remainingMs(): number {
    return this.#grant.permit.remainingMs();
  }

  renew(ttlMs?: number): Promise<void> {
    return this.#grant.permit.renew(ttlMs);
  }

  release(): Promise<void> {
    if (!this.#letGo) {
      this.#letGo = true;
      this.#grant.letGo();
    }
    this.#release ??= this.#grant.settle().catch((error: unknown) => {
      this.#release = undefined;
      throw error;
    });
    return this.#release;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
