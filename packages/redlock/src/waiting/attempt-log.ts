import { monotonicNow } from "@distlock/core";

interface Entry {
  /** `performance.now()` when the latest attempt began. */
  at: number;
  /** True when the latest attempt split the vote and its waiter has not yet taken the note. */
  split: boolean;
  watchers: number;
}

/** What a waiter on one key reads from the log. */
export interface KeyAttempts {
  /** When the latest attempt on the key began (or the watch started, before any). */
  readonly lastAttemptAt: () => number;
  /** True, once, after an attempt split the vote. */
  readonly takeSplitVote: () => boolean;
  /** Stops remembering the key for this waiter; idempotent. */
  readonly unwatch: () => void;
}

/** How the latest acquire attempt on each watched key went; a key is remembered only while someone waits on it. */
export class AttemptLog {
  readonly #keys = new Map<string, Entry>();

  /** Notes that an attempt on `key` began at `at`. */
  began(key: string, at: number): void {
    const entry = this.#keys.get(key);
    if (entry !== undefined) entry.at = at;
  }

  /** Notes that the latest attempt on `key` split the vote: its waiter should back off instead of waking on notifications. */
  splitVote(key: string): void {
    const entry = this.#keys.get(key);
    if (entry !== undefined) entry.split = true;
  }

  watch(key: string): KeyAttempts {
    const entry = this.#keys.get(key) ?? { at: monotonicNow(), split: false, watchers: 0 };
    this.#keys.set(key, entry);
    entry.watchers += 1;
    let watching = true;
    return {
      lastAttemptAt: () => entry.at,
      takeSplitVote: () => {
        const split = entry.split;
        entry.split = false;
        return split;
      },
      unwatch: () => {
        if (!watching) return;
        watching = false;
        entry.watchers -= 1;
        if (entry.watchers === 0 && this.#keys.get(key) === entry) this.#keys.delete(key);
      },
    };
  }
}
