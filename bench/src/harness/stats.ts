/** The p-th percentile (0..100) of `values` (nearest rank); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/**
 * Milliseconds on CLOCK_MONOTONIC, the clock every process of one machine shares (sub-ms resolution).
 * Not `performance.timeOrigin + now`: timeOrigin is a start-up wall-clock reading, off by several ms under load.
 */
export function sharedClockMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Resolves once the shared clock reaches `at` (at once if it already has). */
export function sleepUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - sharedClockMs())));
}
