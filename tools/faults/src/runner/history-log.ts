import type { HistoryEvent } from "../history/history-event.js";

interface Waiter {
  readonly match: (event: HistoryEvent) => boolean;
  readonly resolve: (event: HistoryEvent) => void;
}

/** The history of one row as it arrives from the workers and the fault injectors. */
export class HistoryLog {
  readonly #events: HistoryEvent[] = [];
  #waiters: Waiter[] = [];

  get events(): readonly HistoryEvent[] {
    return this.#events;
  }

  add(event: HistoryEvent): void {
    this.#events.push(event);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      if (waiter.match(event)) waiter.resolve(event);
      else this.#waiters.push(waiter);
    }
  }

  /** The next event (from now on) that matches, or undefined after `timeoutMs`. */
  next<T extends HistoryEvent>(match: (event: HistoryEvent) => event is T, timeoutMs: number): Promise<T | undefined>;
  next(match: (event: HistoryEvent) => boolean, timeoutMs: number): Promise<HistoryEvent | undefined>;
  next(match: (event: HistoryEvent) => boolean, timeoutMs: number): Promise<HistoryEvent | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((other) => other !== waiter);
        resolve(undefined);
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }
}
