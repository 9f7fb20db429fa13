import { percentile } from "./stats.js";

/** One acquisition in a contended loop: who, and when (shared clock) it called acquire, got the key and started releasing it. */
export type Acquisition = readonly [worker: string, calledAt: number, acquiredAt: number, releasedAt: number];

/** The measured window on the shared clock. */
export interface Window {
  readonly startAt: number;
  readonly endAt: number;
}

/**
 * Metrics of the acquisitions granted inside `window`: throughput, waiting time, fairness over `workers` (every worker
 * id, so one that never got the key counts as 0) and, with `handOff` (everyone contends for one key that one holds at
 * a time), hand-off latency: from one worker's release to the next grant, wherever the holder changes.
 */
export function contentionMetrics(
  acquisitions: readonly Acquisition[],
  window: Window,
  workers: readonly string[],
  handOff: boolean,
): { readonly granted: number; readonly metrics: Record<string, number> } {
  const inWindow = acquisitions.filter(([, , acquiredAt]) => acquiredAt >= window.startAt && acquiredAt < window.endAt).sort((a, b) => a[2] - b[2]);
  const perWorker = new Map<string, number>(workers.map((worker) => [worker, 0]));
  for (const [worker] of inWindow) perWorker.set(worker, (perWorker.get(worker) ?? 0) + 1);
  const counts = [...perWorker.values()];
  // Acquisitions/s first: the column a contended table leads with.
  const metrics: Record<string, number> = { "acq/s": inWindow.length / ((window.endAt - window.startAt) / 1000) };
  if (handOff) {
    const handOffs: number[] = [];
    for (let i = 1; i < inWindow.length; i++) {
      const [previous, current] = [inWindow[i - 1] as Acquisition, inWindow[i] as Acquisition];
      if (previous[0] !== current[0]) handOffs.push(current[2] - previous[3]);
    }
    Object.assign(metrics, { "hand-off p50 ms": percentile(handOffs, 50), "hand-off p99 ms": percentile(handOffs, 99) });
  }
  Object.assign(metrics, {
    "wait p99 ms": percentile(
      inWindow.map(([, calledAt, acquiredAt]) => acquiredAt - calledAt),
      99,
    ),
    "fairness min/max": Math.min(...counts) / Math.max(...counts),
  });
  return { granted: inWindow.length, metrics };
}
