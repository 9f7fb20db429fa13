import type { DriverRenewal } from "@distlock/core/driver";
import { extendLease, type SessionLease } from "./lock-session.js";

/**
 * Renews holds kept by sessions: one round trip per session (`prove`) covers every hold on it, and each hold whose
 * session answered (and that is still `current`) gets its lease extended. One boolean per renewal, in order.
 */
export async function renewOnSessions<T extends SessionLease>(
  renewals: readonly DriverRenewal[],
  find: (renewal: DriverRenewal) => T | undefined,
  current: (hold: T) => boolean,
  prove: (session: T["session"], ttlMs: number) => Promise<boolean>,
): Promise<boolean[]> {
  const bySession = new Map<T["session"], { hold: T; ttlMs: number }[]>();
  const holds = renewals.map((renewal) => {
    const hold = find(renewal);
    if (hold === undefined) return undefined;
    const group = bySession.get(hold.session) ?? [];
    group.push({ hold, ttlMs: renewal.ttlMs });
    bySession.set(hold.session, group);
    return hold;
  });
  const renewed = new Set<T>();
  await Promise.all(
    [...bySession].map(async ([session, group]) => {
      if (!(await prove(session, Math.max(...group.map(({ ttlMs }) => ttlMs))))) return;
      for (const { hold, ttlMs } of group) {
        if (!current(hold)) continue;
        extendLease(hold, ttlMs);
        renewed.add(hold);
      }
    }),
  );
  return holds.map((hold) => hold !== undefined && renewed.has(hold));
}
