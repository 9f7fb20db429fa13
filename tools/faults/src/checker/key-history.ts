import type { HistoryEvent } from "../history/history-event.js";

/**
 * One key's history out of a multi-key row's, as a lock row's history of that key would read: the asks for sets that
 * include it, its own `acquired` and `write` events, every other event of the holds that took it, and the events of no
 * hold (faults, kills, stops).
 */
export function keyHistory(events: readonly HistoryEvent[], key: string): HistoryEvent[] {
  const holdsOfKey = new Set(events.flatMap((event) => (event.type === "acquired" && event.key === key ? [event.hold] : [])));
  return events.filter((event) => {
    switch (event.type) {
      case "acquire-start":
        return event.keys === undefined || event.keys.includes(key);
      case "acquired":
      case "write":
        return event.key === key;
      default:
        return !("hold" in event) || holdsOfKey.has(event.hold);
    }
  });
}
