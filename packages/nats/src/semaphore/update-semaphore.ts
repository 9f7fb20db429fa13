import { deleteIfAt, writeIfAt } from "../holds/conditional-writes.js";
import type { HoldContext } from "../holds/hold-context.js";
import { grantToken, markerValue } from "../holds/hold-record.js";
import { isIdle, type LiveSemaphore, readLiveSemaphore } from "./live-semaphore.js";
import { type SemaphoreRecord, semaphoreValue } from "./semaphore-record.js";

/**
 * How often a change reads again after losing a write race. Every holder and waiter of a semaphore writes its one
 * record, so races are the rule under contention; each lost race means another change was made.
 */
const MAX_SEMAPHORE_RACES = 64;

/** What a change of a semaphore decides from its live view: a new record to write (none: leave it), and its answer. */
export interface SemaphoreChange<T> {
  /** The record to store; an idle record deletes the key. Undefined writes nothing. */
  readonly next?: SemaphoreRecord;
  /**
   * The answer, given the revision the write made (or the one read, when nothing was written) and the token a grant
   * that write added has (`grantToken`).
   */
  readonly answer: (revision: number, addedGrantToken: bigint) => T;
}

/**
 * Reads the semaphore, lets `decide` choose a change from its live view, and makes it with one conditional write on
 * the write read (a delete once nobody holds or waits, whose marker keeps the highest token); reads again when another
 * write came first. `first` is a view
 * the caller already has (a watch delivered it): it is used instead of the first read.
 */
export function updateSemaphore<T>(
  context: HoldContext,
  bucketKey: string,
  decide: (live: LiveSemaphore) => SemaphoreChange<T>,
  first?: LiveSemaphore,
): Promise<T> {
  // This process's changes of one record take turns: they would only race each other for it.
  const turns = turnsOf(context);
  const previous = turns.get(bucketKey);
  const change = previous === undefined ? raceForRecord(context, bucketKey, decide, first) : previous.then(() => raceForRecord(context, bucketKey, decide));
  const settled: Promise<unknown> = change.then(
    () => undefined,
    () => undefined,
  );
  turns.set(bucketKey, settled);
  void settled.then(() => {
    if (turns.get(bucketKey) === settled) turns.delete(bucketKey);
  });
  return change;
}

/** Per provider context, the change of each semaphore record in flight here. */
const changesInFlight = new WeakMap<HoldContext, Map<string, Promise<unknown>>>();

function turnsOf(context: HoldContext): Map<string, Promise<unknown>> {
  let turns = changesInFlight.get(context);
  if (turns === undefined) {
    turns = new Map();
    changesInFlight.set(context, turns);
  }
  return turns;
}

/** After a lost race, waits a random while that grows with the races lost, so that racing processes spread out. */
function backOff(racesLost: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(racesLost, 6)));
}

async function raceForRecord<T>(
  context: HoldContext,
  bucketKey: string,
  decide: (live: LiveSemaphore) => SemaphoreChange<T>,
  first?: LiveSemaphore,
): Promise<T> {
  let known = first;
  for (let race = 0; race < MAX_SEMAPHORE_RACES; race++) {
    const live = known ?? (await readLiveSemaphore(context, bucketKey));
    known = undefined;
    const { next, answer } = decide(live);
    const addedToken = grantToken(live.revision, live.lastToken);
    if (next === undefined) return answer(live.revision, addedToken);
    if (isIdle(next)) {
      if (!live.exists) return answer(live.revision, addedToken);
      if ((await deleteIfAt(context, bucketKey, markerValue(live.lastToken), live.version)) !== undefined) return answer(live.revision, addedToken);
    } else {
      const written = await writeIfAt(context, bucketKey, semaphoreValue(next, live.lastToken, addedToken), live.version);
      if (written !== undefined) return answer(written.revision, addedToken);
    }
    await backOff(race);
  }
  throw new Error(`the semaphore ${bucketKey} kept changing under ${MAX_SEMAPHORE_RACES} writes in a row`);
}
