import { performance } from "node:perf_hooks";

/** Monotonic milliseconds; the only clock lease deadlines use. */
export function monotonicNow(): number {
  return performance.now();
}
