import { BackendUnavailableError } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";

/** The error of a majority grant of `what` (e.g. `"invoice:42"`) whose fan-out from `startedAt` left none of its `ttlMs` lease valid; it was undone. */
export function validitySpent(what: string, startedAt: number, ttlMs: number): BackendUnavailableError {
  return new BackendUnavailableError(
    "redlock",
    `acquiring ${what} took ${Math.round(monotonicNow() - startedAt)} ms, leaving no validity of its ${ttlMs} ms lease; it was released again (raise ttlMs or check the nodes' latency)`,
  );
}
