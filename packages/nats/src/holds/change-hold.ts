import { deleteIfAt, writeIfAt } from "./conditional-writes.js";
import { type HoldContext, type HoldState, MAX_WRITE_RACES, readHold } from "./hold-context.js";
import { grantToken, grantValue, type HoldRecord, markerValue, rewriteValue } from "./hold-record.js";
import { leaseVersionOf } from "./key-version.js";

/** The one write a hold operation makes: a fresh grant, a rewrite of the hold read (same token), or a delete. */
export type HoldWrite =
  | { readonly kind: "grant"; readonly secret: string; readonly holder: string; readonly leaseMs: number }
  | { readonly kind: "rewrite"; readonly record: HoldRecord; readonly holdCount: number; readonly leaseMs: number }
  | { readonly kind: "delete" };

/** What an operation decides from a key's state: a write and the answer once it is stored, or an answer without one. */
export type HoldChange<T> =
  | { readonly write: HoldWrite; readonly answer: (stored: StoredHold) => T }
  | { readonly write?: undefined; readonly answer: () => T };

/** A write of a hold once stored: its revision, and the hold it left (none after a delete). */
export interface StoredHold {
  readonly revision: number;
  readonly record: HoldRecord | undefined;
}

/**
 * Decides from the key's state and makes the decision with one conditional write on that state's latest write, reading
 * again when another write came first; `exhausted` answers after `MAX_WRITE_RACES` lost races. The first state is this
 * process's own last write of the key where it has one (no read): a decision that writes nothing is then made again
 * from a read, since only a write proves the guess was the latest. A caller that has just read the key passes that
 * state as `first`.
 */
export async function changeHold<T>(
  context: HoldContext,
  bucketKey: string,
  decide: (state: HoldState) => HoldChange<T>,
  exhausted: () => T,
  first?: HoldState,
): Promise<T> {
  let guess = first ?? context.ownWrites.guess(context, bucketKey);
  for (let race = 0; race < MAX_WRITE_RACES; ) {
    const state = guess ?? (await readHold(context, bucketKey));
    guess = undefined;
    const change = decide(state);
    if (change.write === undefined) {
      if (state.guessed) continue;
      return change.answer();
    }
    const stored = await store(context, bucketKey, change.write, state);
    if (stored !== undefined) return change.answer(stored);
    if (!state.guessed) race++;
  }
  return exhausted();
}

/** Makes `write` over `state`'s latest write; what it stored, remembered as this process's last write of the key, or undefined. */
async function store(context: HoldContext, bucketKey: string, write: HoldWrite, state: HoldState): Promise<StoredHold | undefined> {
  if (write.kind === "delete") {
    const deleted = await deleteIfAt(context, bucketKey, markerValue(state.lastToken), state.version);
    if (deleted === undefined) return undefined;
    context.observations.forget(bucketKey);
    context.ownWrites.wrote(bucketKey, deleted, undefined);
    return { revision: deleted.revision, record: undefined };
  }
  const token = grantToken(state.version.revision, state.lastToken);
  const value = write.kind === "grant" ? grantValue(write.secret, write.holder, write.leaseMs, token) : rewriteValue(write.record, write);
  const written = await writeIfAt(context, bucketKey, value, state.version);
  if (written === undefined) return undefined;
  context.observations.seen(bucketKey, leaseVersionOf(written));
  const record: HoldRecord =
    write.kind === "grant"
      ? { secret: write.secret, holder: write.holder, holdCount: 1, leaseMs: write.leaseMs, fencingToken: token }
      : { ...write.record, holdCount: write.holdCount, leaseMs: write.leaseMs };
  context.ownWrites.wrote(bucketKey, written, record);
  return { revision: written.revision, record };
}
