import { LockError } from "@distlock/core";
import type { HistoryEvent } from "../history/history-event.js";
import type { WorkerMessage } from "./worker-protocol.js";

/** Sends a message to the runner (when still connected), then calls `then`. */
export function send(message: WorkerMessage, then?: () => void): void {
  if (process.connected && process.send !== undefined) process.send(message, () => then?.());
  else then?.();
}

/** Streams one history event to the runner. */
export function record(event: HistoryEvent): void {
  send({ type: "event", event });
}

/** A distlock error's code, or another error's class name. */
export const codeOf = (error: unknown): string => (LockError.is(error) ? error.code : error instanceof Error ? error.name : "UNKNOWN");
