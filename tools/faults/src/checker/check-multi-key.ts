import type { HistoryEvent } from "../history/history-event.js";
import { checkHistory } from "./check-history.js";
import { type CheckOptions, DEFAULT_CHECK_OPTIONS } from "./check-options.js";
import { findKeysHeldAfterDeath } from "./held-after-death.js";
import { keyHistory } from "./key-history.js";
import { findStarvedWaiters } from "./starved-waiters.js";
import type { Violation } from "./violation.js";

/** What a multi-key row's history is checked against. */
export interface MultiKeyCheckOptions extends Omit<CheckOptions, "semaphore"> {
  /** The row's shared keys. */
  readonly keys: readonly string[];
  /** Longest a killed holder's key may stay held on the server after its death: its lease, plus the server's expiry. */
  readonly deadHolderBoundMs: number;
}

/**
 * Checks a multi-key row: each key's history (`keyHistory`) as a lock's, for every violation but liveness; liveness on
 * the whole history (a wait for a set ends when the set is granted, and a deadlock shows as waiters that never get
 * theirs); and every key a killed holder kept is freed within `deadHolderBoundMs`. Details name the key.
 */
export function checkMultiKeyHistory(events: readonly HistoryEvent[], options: MultiKeyCheckOptions): Violation[] {
  const { keys, deadHolderBoundMs, ...rest } = options;
  const settings = { ...DEFAULT_CHECK_OPTIONS, ...rest };
  if (events.length === 0) return [];
  const history = [...events].sort((a, b) => a.at - b.at);
  const perKey = keys.flatMap((key) =>
    checkHistory(keyHistory(history, key), { ...settings, livenessBoundMs: Number.POSITIVE_INFINITY }).map((violation) => ({
      ...violation,
      detail: `key ${key}: ${violation.detail}`,
    })),
  );
  return [
    ...perKey,
    ...findStarvedWaiters(history, settings.livenessBoundMs, settings.outageGraceMs, history[0]?.at ?? 0),
    ...findKeysHeldAfterDeath(history, deadHolderBoundMs),
  ];
}
