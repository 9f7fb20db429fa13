import { type Context, diag } from "@opentelemetry/api";
import { INSTRUMENTATION_SCOPE } from "./names.js";

/** Records one event that happened at `at` (`performance.now()`, or 0 when not asked for) in the context `active`. */
export type EventRecorder = (event: never, at: number, active: Context | undefined) => void;

/** How long events wait to be recorded together. */
const RECORD_DELAY_MS = 10;
/** More events than this are recorded at once, without waiting for the delay. */
const MAX_QUEUED_EVENTS = 1024;
const SLOTS_PER_EVENT = 4;

/**
 * Lock events waiting to be recorded. A listener only appends its event; the recording (attribute sets, SDK records,
 * spans) runs for every event of the last `RECORD_DELAY_MS` at once. Recorded one at a time between a lock call's
 * server round trips, the same code ran with cold caches at several times the cost (see the README's "Cost").
 */
export class DeferredEvents {
  /** recorder, event, at, active: `SLOTS_PER_EVENT` slots per event. */
  readonly #queue: unknown[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #flush = () => this.flush();

  add(recorder: EventRecorder, event: unknown, at: number, active: Context | undefined): void {
    const queue = this.#queue;
    queue.push(recorder, event, at, active);
    if (queue.length >= MAX_QUEUED_EVENTS * SLOTS_PER_EVENT) this.flush();
    else this.#timer ??= setTimeout(this.#flush, RECORD_DELAY_MS);
  }

  /** Records every queued event now. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const queue = this.#queue;
    for (let i = 0; i < queue.length; i += SLOTS_PER_EVENT) {
      try {
        (queue[i] as EventRecorder)(queue[i + 1] as never, queue[i + 2] as number, queue[i + 3] as Context | undefined);
      } catch (error) {
        // A throwing recorder (a user's keyLabel, the SDK) must reach neither the locking code nor the event loop.
        diag.error(`${INSTRUMENTATION_SCOPE}: recording a lock event failed`, error);
      }
    }
    queue.length = 0;
  }
}
