import type { HistoryEvent } from "../history/history-event.js";
import type { Violation } from "./violation.js";

/** Keys the server still showed held by a killed process more than `boundMs` after its death (`dead-holder-keys` probes). */
export function findKeysHeldAfterDeath(history: readonly HistoryEvent[], boundMs: number): Violation[] {
  return history.flatMap((event) => {
    if (event.type !== "dead-holder-keys") return [];
    return event.keys.flatMap(({ key, freedAt }) => {
      if (freedAt !== null && freedAt - event.at <= boundMs) return [];
      const how = freedAt === null ? "still when the probe gave up" : `for ${(freedAt - event.at).toFixed(0)}ms`;
      return [{ kind: "held-after-death" as const, detail: `${key} was held by the killed ${event.worker} ${how} after its death (bound ${boundMs}ms)` }];
    });
  });
}

/** The longest a killed process's key stayed held after its death, over the row's probes (null: no probe, or one gave up). */
export function longestHeldAfterDeath(history: readonly HistoryEvent[]): number | null {
  const spans = history.flatMap((event) =>
    event.type === "dead-holder-keys" ? event.keys.map(({ freedAt }) => (freedAt === null ? null : freedAt - event.at)) : [],
  );
  if (spans.length === 0 || spans.includes(null)) return null;
  return Math.max(...(spans as number[]));
}
