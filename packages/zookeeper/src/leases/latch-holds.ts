import type { HeldNode } from "./held-node.js";
import type { HeldNodes } from "./held-nodes.js";

/** A leader-latch node that one driver of this process holds, and the leases of that driver, which keep it. */
export interface LatchHold {
  readonly node: HeldNode;
  readonly held: HeldNodes;
}

/** By ensemble (its connect string) and lock path: one holder at a time per lock path. */
const holds = new Map<string, LatchHold>();

const keyOf = (ensemble: string, lockPath: string): string => `${ensemble}\n${lockPath}`;

/**
 * A latch's node is never written after its create (`LockLayout.writesNodes`), so its hold count and lease live only in
 * the driver that holds it. Every driver of this process records its latch holds here, so that another provider with
 * the same owner can re-enter, renew and release them; another process cannot.
 */
export function shareLatchHold(ensemble: string, lockPath: string, hold: LatchHold): void {
  holds.set(keyOf(ensemble, lockPath), hold);
}

/** The hold of `lockPath` that a driver of this process still has, if any. */
export function latchHoldAt(ensemble: string, lockPath: string): LatchHold | undefined {
  const key = keyOf(ensemble, lockPath);
  const hold = holds.get(key);
  if (hold === undefined || hold.held.get(hold.node.key) === hold.node) return hold;
  holds.delete(key);
  return undefined;
}

/** The hold of `lockPath` that a driver of this process still has for the owner of `ownerSecret`, if any. */
export function latchHoldOf(ensemble: string, lockPath: string, ownerSecret: string): LatchHold | undefined {
  const hold = latchHoldAt(ensemble, lockPath);
  return hold?.node.ownerSecret === ownerSecret ? hold : undefined;
}
