import { type LatchHold, latchHoldOf } from "../leases/latch-holds.js";
import type { LockContext } from "./lock-context.js";
import { lockPath } from "./lock-layout.js";

/** The latch hold of `key` for the owner of `ownerSecret` that this driver, or another driver of this process, keeps. */
export function heldLatch(context: LockContext, key: string, ownerSecret: string): LatchHold | undefined {
  const own = context.held.get(key);
  if (own !== undefined && own.ownerSecret === ownerSecret) return { node: own, held: context.held };
  return latchHoldOf(context.ensemble, lockPath(context.layout, key), ownerSecret);
}
