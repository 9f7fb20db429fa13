/** Tolerances of the history checker. */
export interface CheckOptions {
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

export const DEFAULT_CHECK_OPTIONS: Readonly<Required<CheckOptions>> = Object.freeze({
  clockEpsilonMs: 10,
  livenessBoundMs: 10_000,
  outageGraceMs: 3_000,
});
