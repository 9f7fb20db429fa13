/** How long a key still counts as contended after this process's last wait on it ended. */
const CONTENDED_FOR_MS = 1_000;
/** Keys remembered at most; the oldest is forgotten first (it then merely costs one refused attempt). */
const MAX_REMEMBERED = 10_000;

/**
 * The keys this process waits on, or waited on a moment ago. An owner that comes back for such a key (typically the
 * one that was just served and released) joins the line at once: the direct attempt would only be refused by the
 * waiters in line, and it costs a write and a read.
 */
export class ContendedKeys {
  readonly #waits = new Map<string, number>();
  readonly #lastEndedAt = new Map<string, number>();

  /** A wait on `key` starts. */
  enter(key: string): void {
    this.#waits.set(key, (this.#waits.get(key) ?? 0) + 1);
  }

  /** A wait on `key` ended (granted or not). */
  leave(key: string, now = performance.now()): void {
    const left = (this.#waits.get(key) ?? 1) - 1;
    if (left > 0) {
      this.#waits.set(key, left);
      return;
    }
    this.#waits.delete(key);
    this.#lastEndedAt.delete(key);
    this.#lastEndedAt.set(key, now);
    if (this.#lastEndedAt.size > MAX_REMEMBERED) this.#lastEndedAt.delete(this.#lastEndedAt.keys().next().value as string);
  }

  /** Whether a wait on `key` runs here, or the last one ended less than `CONTENDED_FOR_MS` ago. */
  has(key: string, now = performance.now()): boolean {
    if (this.#waits.has(key)) return true;
    const endedAt = this.#lastEndedAt.get(key);
    if (endedAt === undefined) return false;
    if (now - endedAt < CONTENDED_FOR_MS) return true;
    this.#lastEndedAt.delete(key);
    return false;
  }
}
