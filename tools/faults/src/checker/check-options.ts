/** Tolerances of the history checker, and what the history is of. */
export interface CheckOptions {
  /**
   * The history is a counting semaphore's, not a lock's: at most `permits` held at once (each grant counting its
   * `count`), every grant's token distinct and larger than that of every grant acquired before it was asked for, and no
   * holder acting after it learnt that it lost its permits.
   * @default undefined (a lock: one holder at a time, tokens larger than those of holds released before the ask)
   */
  semaphore?: { readonly permits: number };
  /**
   * Clock tolerance when comparing times recorded by different processes of one machine.
   * @default 10
   */
  clockEpsilonMs?: number;
  /**
   * Longest a worker may go without the key (from its first attempt to its grant), outages not counted.
   * @default 10_000
   */
  livenessBoundMs?: number;
  /**
   * Time after an outage's end still counted as outage (reconnects, leases granted before it running out).
   * @default 3_000
   */
  outageGraceMs?: number;
}

export const DEFAULT_CHECK_OPTIONS: Readonly<Required<Omit<CheckOptions, "semaphore">>> = Object.freeze({
  clockEpsilonMs: 10,
  livenessBoundMs: 10_000,
  outageGraceMs: 3_000,
});
