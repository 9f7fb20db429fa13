import type { LockProvider } from "@distlock/core";
import { withLock } from "@distlock/core";
import { LOCK_PROVIDER } from "@distlock/core/inversify";
import { inject, injectable } from "inversify";

/** A stand-in for a table the app writes: refuses writes fenced with an older token than one already seen. */
export class InvoiceLedger {
  readonly numbers: number[] = [];
  #highestToken = -1n;

  append(number: number, fencingToken: bigint | null): void {
    if (fencingToken !== null && fencingToken < this.#highestToken) throw new Error(`stale fencing token ${fencingToken}`);
    if (fencingToken !== null) this.#highestToken = fencingToken;
    this.numbers.push(number);
  }
}

/** Hands out gap-free invoice numbers; which lock backend guards them is the container's business. */
@injectable()
export class InvoiceNumbers {
  constructor(
    @inject(LOCK_PROVIDER) private readonly locks: LockProvider,
    @inject(InvoiceLedger) private readonly ledger: InvoiceLedger,
  ) {}

  /** The next invoice number, taken under the "invoice-numbers" lock. */
  next(): Promise<number> {
    return withLock(this.locks, "invoice-numbers", async (lock) => {
      const number = this.ledger.numbers.length + 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
      this.ledger.append(number, lock.fencingToken);
      return number;
    });
  }

  /** The backend in use, for the logs. */
  get backend(): string {
    return this.locks.backend;
  }
}
