import { type HistoryEvent, processOf } from "../history/history-event.js";

/** Everything the history says about one acquisition: a lock's hold, or a semaphore's grant of `count` permits. */
export interface HoldRecord {
  readonly hold: string;
  readonly worker: string;
  readonly token: bigint;
  /** Permits it holds (1 for a lock). */
  readonly count: number;
  /** When the worker asked for the key (the grant, and so the token, came later). */
  readonly askedAt: number;
  readonly acquiredAt: number;
  validUntil: number;
  csStart?: number;
  csEnd?: number;
  lostAt?: number;
  releasedAt?: number;
}

/** A time of the history as an offset from its first event, for messages. */
export const sinceOrigin = (at: number, origin: number): string => `+${(at - origin).toFixed(1)}ms`;

/** Every acquisition of a (time-sorted) history, by hold name. */
export function collectHolds(history: readonly HistoryEvent[]): Map<string, HoldRecord> {
  const holds = new Map<string, HoldRecord>();
  const askedAt = new Map<string, number>();
  const killedAt = new Map<string, number>();
  for (const event of history) {
    switch (event.type) {
      case "acquire-start":
        askedAt.set(event.worker, event.at);
        break;
      case "acquired":
        holds.set(event.hold, {
          hold: event.hold,
          worker: event.worker,
          token: BigInt(event.token),
          count: event.count ?? 1,
          askedAt: askedAt.get(event.worker) ?? event.at,
          acquiredAt: event.at,
          validUntil: event.validUntil,
        });
        break;
      case "killed":
        killedAt.set(event.worker, event.at);
        break;
      default:
        if ("hold" in event) noteHoldEvent(holds.get(event.hold), event);
    }
  }
  // A killed holder stops believing anything when it dies.
  for (const record of holds.values()) {
    const killed = killedAt.get(processOf(record.worker));
    if (record.csEnd === undefined && killed !== undefined && killed >= record.acquiredAt) record.csEnd = killed;
  }
  return holds;
}

function noteHoldEvent(record: HoldRecord | undefined, event: HistoryEvent): void {
  if (record === undefined) return;
  if ("validUntil" in event) record.validUntil = Math.max(record.validUntil, event.validUntil);
  if (event.type === "cs-start") record.csStart = event.at;
  else if (event.type === "cs-end") record.csEnd = event.at;
  else if (event.type === "lost") record.lostAt ??= event.at;
  else if (event.type === "released") record.releasedAt = event.at;
}

/** The interval in which the holder ran its critical section and still believed it held the key. */
export function believed(record: HoldRecord): { from: number; to: number } {
  const from = record.csStart ?? record.acquiredAt;
  const to = Math.min(record.csEnd ?? Number.POSITIVE_INFINITY, record.lostAt ?? Number.POSITIVE_INFINITY, record.validUntil);
  return { from, to };
}
