/** The first sleep of a waiter that moved up the line, and every later one at the head of a line that moves. */
export const MIN_POLL_DELAY_MS = 5;
/** The longest sleep between two reads, however long the line stands still or however far back the waiter is. */
export const MAX_POLL_DELAY_MS = 500;

/**
 * How long a waiter in line sleeps before it reads the item again (DynamoDB cannot notify). The delay starts short
 * each time the waiter moves up, doubles while it does not, and grows with the places ahead of it: the head, which
 * takes the key as soon as it reads it free, and the waiter next to it, which is the head as soon as that takes it,
 * poll most often; a waiter k places back reads 1/k as often. Jittered by ±50 %, so waiters do not read in step.
 */
export class PollDelay {
  #backoffMs = MIN_POLL_DELAY_MS;
  #ahead = Number.POSITIVE_INFINITY;

  /** The next sleep for a waiter with `ahead` places before it; `random` in [0, 1). */
  next(ahead: number, random = Math.random()): number {
    this.#backoffMs = ahead < this.#ahead ? MIN_POLL_DELAY_MS : Math.min(this.#backoffMs * 2, MAX_POLL_DELAY_MS);
    this.#ahead = ahead;
    return Math.min(MAX_POLL_DELAY_MS, this.#backoffMs * Math.max(1, ahead) * (0.5 + random));
  }
}
