/** A server clock this far from the host's is worth a warning: logs, tokens made from server time and drift checks read wrong. */
export const CLOCK_SKEW_WARN_MS = 1_000;

/** "12.3 ms ahead of" / "4.0 ms behind". */
export function formatOffset(ms: number): string {
  return `${Math.abs(ms).toFixed(1)} ms ${ms >= 0 ? "ahead of" : "behind"}`;
}
