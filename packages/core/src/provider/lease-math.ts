import { DRIFT_FACTOR, DRIFT_FLOOR_MS } from "../options/defaults.js";
import type { LockCapabilities } from "../types.js";

/** Raises `ttlMs` to the backend's minimum and rounds it up to its granularity. */
export function roundTtl(ttlMs: number, capabilities: LockCapabilities): number {
  const atLeastMinimum = Math.max(ttlMs, capabilities.minTtlMs);
  const step = Math.max(1, capabilities.ttlGranularityMs);
  return Math.ceil(atLeastMinimum / step) * step;
}

/** The local deadline of a lease that started no earlier than `startedAt`, with clock drift subtracted. */
export function conservativeDeadline(startedAt: number, ttlMs: number): number {
  return startedAt + ttlMs - (ttlMs * DRIFT_FACTOR + DRIFT_FLOOR_MS);
}
