import { MAX_READERS } from "../options/defaults.js";
import type { PermitHolderState, ReadWriteHolderState, ReadWriteLockState, SemaphoreState } from "../types.js";

/** The read-write view of the semaphore under the lock `name`: a holder of every permit is the writer, the others are readers. */
export function readWriteState(name: string, state: SemaphoreState | null): ReadWriteLockState | null {
  if (state === null) return null;
  const readers: ReadWriteHolderState[] = [];
  let writer: ReadWriteHolderState | null = null;
  for (const holder of state.holders) {
    if (holder.count === MAX_READERS) writer = holderState(holder);
    else readers.push(holderState(holder));
  }
  return { name, readers, writer, waiters: state.waiters };
}

function holderState({ holder, fencingToken, ttlRemainingMs }: PermitHolderState): ReadWriteHolderState {
  return { holder, fencingToken, ttlRemainingMs };
}
