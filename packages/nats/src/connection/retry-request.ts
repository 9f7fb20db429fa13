import { JetStreamApiError } from "@nats-io/jetstream";
import { ClosedConnectionError } from "@nats-io/transport-node";

/**
 * How long one try of a read or a conditional write may wait for its answer before it is sent again. A JetStream
 * cluster answers nothing while a stream elects a leader (nats-server 2.9 waits 4–9 s before it votes), and a request
 * sent to a leader that died is never answered: short tries find the new leader within this much of its election,
 * where one try of `commandTimeoutMs` would wait out the whole bound.
 */
export const ATTEMPT_TIMEOUT_MS = 500;

/** Least time between the starts of two tries, so that a try refused at once (no responders) does not spin. */
const ATTEMPT_SPACING_MS = 100;

/** True for an error that says nothing about the request's outcome: no answer, no responders, a server on its way. */
function isUnanswered(error: unknown): boolean {
  return !(error instanceof JetStreamApiError) && !(error instanceof ClosedConnectionError);
}

/**
 * Runs `attempt` until it is answered, trying again after a try that got no answer, for `budgetMs` in all (the last
 * try may end up to `ATTEMPT_TIMEOUT_MS` later); the last try's error once the budget is spent. A JetStream error is an
 * answer and ends it at once. `attempt` learns whether an earlier try was sent, which a write needs: that try may have
 * been stored.
 */
export async function retryRequest<T>(budgetMs: number, attempt: (resent: boolean) => Promise<T>): Promise<T> {
  const deadline = performance.now() + budgetMs;
  for (let resent = false; ; resent = true) {
    const startedAt = performance.now();
    try {
      return await attempt(resent);
    } catch (error) {
      if (!isUnanswered(error) || performance.now() >= deadline) throw error;
    }
    const pause = startedAt + ATTEMPT_SPACING_MS - performance.now();
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
