import type { LockSession } from "./lock-session.js";

/** The server idle limit `session` needs: the longest lease it keeps (locks and permits) (`ttlMs` among them), rounded up to `granularityMs`. */
export function idleLimitFor(session: LockSession, ttlMs: number, granularityMs: number): number {
  let longest = ttlMs;
  for (const lock of session.locks) longest = Math.max(longest, lock.ttlMs);
  for (const grant of session.permits) longest = Math.max(longest, grant.ttlMs);
  return Math.ceil(longest / granularityMs) * granularityMs;
}

/** The least busy of `sessions` that is not waiting, if there is one. */
export function leastBusy(sessions: Iterable<LockSession>): LockSession | undefined {
  let best: LockSession | undefined;
  for (const session of sessions) if (!session.waiting && (best === undefined || session.inFlight < best.inFlight)) best = session;
  return best;
}
