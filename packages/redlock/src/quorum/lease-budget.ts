import { DRIFT_FACTOR, DRIFT_FLOOR_MS, monotonicNow } from "@distlock/core/internal";
import type { FanOutBound } from "./fan-out-options.js";

/** Share of a lease one node may take to answer an acquire or renew. */
const NODE_TIMEOUT_TTL_FRACTION = 0.1;
/** Share of a lease a node still making its first connection may take to answer an acquire or renew. */
const FIRST_CONNECT_TTL_FRACTION = 1 / 3;

/** What the budget is computed from. */
export interface LeaseBudgetConfig {
  readonly driftFactor: number;
  readonly driftFloorMs: number;
  readonly nodeTimeoutMs: number;
}

/**
 * Redlock's time arithmetic. A lease is valid for `lease − elapsed − drift` after the moment taken before
 * the fan-out. Core subtracts its own drift from the requested ttl; when the configured drift is larger,
 * the server lease is lengthened by the difference, so core's deadline never outlives the Redlock validity.
 */
export class LeaseBudget {
  readonly #config: LeaseBudgetConfig;

  constructor(config: LeaseBudgetConfig) {
    this.#config = Object.freeze({ ...config });
  }

  /** Drift assumed for a lease of `ttlMs`: the configured one, never less than core's. */
  driftMs(ttlMs: number): number {
    return Math.max(ttlMs * this.#config.driftFactor + this.#config.driftFloorMs, coreDriftMs(ttlMs));
  }

  /** The lease to set on the nodes for a requested `ttlMs`. */
  leaseMs(ttlMs: number): number {
    return Math.ceil(ttlMs + this.driftMs(ttlMs) - coreDriftMs(ttlMs));
  }

  /** Validity left of a lease of `ttlMs` whose fan-out started at `startedAt`; a grant is usable only while this is positive. */
  validityMs(ttlMs: number, startedAt: number): number {
    return this.leaseMs(ttlMs) - (monotonicNow() - startedAt) - this.driftMs(ttlMs);
  }

  /** The bound of one fan-out for a lease of `ttlMs` (none when omitted): how long a node may take, also while it is still connecting. */
  bound(operation: string, ttlMs?: number): FanOutBound {
    if (ttlMs === undefined) return { operation, timeoutMs: this.#config.nodeTimeoutMs, firstConnectMs: Number.POSITIVE_INFINITY };
    return {
      operation,
      timeoutMs: Math.max(1, Math.min(this.#config.nodeTimeoutMs, Math.floor(ttlMs * NODE_TIMEOUT_TTL_FRACTION))),
      firstConnectMs: Math.floor(ttlMs * FIRST_CONNECT_TTL_FRACTION),
    };
  }
}

function coreDriftMs(ttlMs: number): number {
  return ttlMs * DRIFT_FACTOR + DRIFT_FLOOR_MS;
}
