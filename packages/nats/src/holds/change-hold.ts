import { deleteIfAt, writeIfAt } from "./conditional-writes.js";
import { type HoldContext, type HoldState, MAX_WRITE_RACES, readHold } from "./hold-context.js";
import { grantValue, type HoldRecord, rewriteValue } from "./hold-record.js";

/** The one write a hold operation makes: a fresh grant, a rewrite of the hold read (same token), or a delete. */
export type HoldWrite =
  | { readonly kind: "grant"; readonly secret: string; readonly holder: string; readonly leaseMs: number }
  | { readonly kind: "rewrite"; readonly record: HoldRecord; readonly holdCount: number; readonly leaseMs: number }
  | { readonly kind: "delete" };

/** What an operation decides from a key's state: a write and the answer once it is stored, or an answer without one. */
export type HoldChange<T> = { readonly write: HoldWrite; readonly answer: (revision: number) => T } | { readonly write?: undefined; readonly answer: () => T };

/**
 * Decides from the key's state and makes the decision with one conditional write on that state's revision, reading
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
    const written = await store(context, bucketKey, change.write, state.revision);
    if (written !== undefined) return change.answer(written);
    if (!state.guessed) race++;
  }
  return exhausted();
}

/** Makes `write` on `revision`; its new revision, remembered as this process's last write of the key, or undefined. */
async function store(context: HoldContext, bucketKey: string, write: HoldWrite, revision: number): Promise<number | undefined> {
  if (write.kind === "delete") {
    const deleted = await deleteIfAt(context, bucketKey, revision);
    if (deleted === undefined) return undefined;
    context.observations.forget(bucketKey);
    context.ownWrites.wrote(bucketKey, deleted, undefined);
    return deleted;
  }
  const value = write.kind === "grant" ? grantValue(write.secret, write.holder, write.leaseMs) : rewriteValue(write.record, write);
  const written = await writeIfAt(context, bucketKey, value, revision);
  if (written === undefined) return undefined;
  context.observations.seen(bucketKey, written);
  const record: HoldRecord =
    write.kind === "grant"
      ? { secret: write.secret, holder: write.holder, holdCount: 1, leaseMs: write.leaseMs, fencingToken: BigInt(written) }
      : { ...write.record, holdCount: write.holdCount, leaseMs: write.leaseMs };
  context.ownWrites.wrote(bucketKey, written, record);
  return written;
}
