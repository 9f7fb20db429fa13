/** A place in line for one key in this process. */
export interface WaitTicket {
  /** Resolves when this ticket is first in line, or when `signal` aborts (check it). */
  turn(signal: AbortSignal): Promise<void>;
  /** Leaves the line and lets the next ticket go; idempotent. */
  leave(): void;
}

interface Entry {
  wake: () => void;
  left: boolean;
}

/** Per-key FIFO of this process's waiters, so only the first one competes with other processes (no herd inside a process). */
export class ProcessLines {
  readonly #lines = new Map<string, Entry[]>();

  /** True while anyone waits in (or heads) the line for `key`. */
  has(key: string): boolean {
    return this.#lines.has(key);
  }

  enter(key: string): WaitTicket {
    const line = this.#lines.get(key) ?? [];
    if (line.length === 0) this.#lines.set(key, line);
    let wake!: () => void;
    const first = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const entry: Entry = { wake, left: false };
    line.push(entry);
    if (line[0] === entry) entry.wake();
    return {
      turn: (signal) => raceAbort(first, signal),
      leave: () => this.#leave(key, entry),
    };
  }

  #leave(key: string, entry: Entry): void {
    if (entry.left) return;
    entry.left = true;
    const line = this.#lines.get(key);
    if (line === undefined) return;
    const wasFirst = line[0] === entry;
    line.splice(line.indexOf(entry), 1);
    if (line.length === 0) this.#lines.delete(key);
    else if (wasFirst) line[0]?.wake();
  }
}

function raceAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
