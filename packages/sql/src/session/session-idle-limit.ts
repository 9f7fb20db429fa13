import type { SessionSlot } from "./session-hold.js";

/** The server idle limit `slot` needs: the longest lease it keeps (`ttlMs` among them), rounded up to `granularityMs`. */
export function idleLimitFor(slot: SessionSlot, ttlMs: number, granularityMs: number): number {
  let longest = ttlMs;
  for (const hold of slot.holds) longest = Math.max(longest, hold.ttlMs);
  return Math.ceil(longest / granularityMs) * granularityMs;
}

/** The least busy session of `slots` that is not waiting, if there is one. */
export function leastBusy(slots: Iterable<SessionSlot>): SessionSlot | undefined {
  let best: SessionSlot | undefined;
  for (const slot of slots) if (!slot.waiting && (best === undefined || slot.inFlight < best.inFlight)) best = slot;
  return best;
}
