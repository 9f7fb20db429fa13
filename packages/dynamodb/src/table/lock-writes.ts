import { randomUUID } from "node:crypto";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";

/** One conditional UpdateItem on a lock item: it changes nothing unless `condition` holds. */
export interface LockWrite {
  readonly update: string;
  readonly condition: string;
  readonly values: Readonly<Record<string, AttributeValue>>;
}

/** What a write of a fresh hold stores. */
export interface NewHold {
  readonly ownerSecret: string;
  readonly holder: string;
  readonly leaseMs: number;
}

const text = (value: string): AttributeValue => ({ S: value });
const number = (value: number): AttributeValue => ({ N: String(value) });

/** Every write of a hold stores a fresh record version: a waiter that sees it unchanged for a lease knows nobody renewed. */
const freshVersion = (): AttributeValue => text(randomUUID());

/** `ADD` counts a missing fencing counter as 0: a key's first holder draws token 1. */
const TAKE = "SET #owner = :owner, #holder = :holder, #count = :one, #lease = :lease, #version = :version ADD #token :one";

/**
 * A fresh hold is written only by the line's head, which leaves the line in the same write, or, by a direct attempt,
 * while nobody waits: so nobody overtakes the line. A direct attempt also removes the line its condition found empty
 * (a list its last place left), so that the key's next take back by its owner (`plainWrites.retakeFreed`) can hold.
 */
function take(hold: NewHold, condition: string, placeId: string | undefined, extra: Record<string, AttributeValue> = {}): LockWrite {
  const line = placeId === undefined ? "attribute_not_exists(#line[0])" : "#line[0].#place = :place";
  const values = {
    ":owner": text(hold.ownerSecret),
    ":holder": text(hold.holder),
    ":one": number(1),
    ":lease": number(hold.leaseMs),
    ":version": freshVersion(),
    ...extra,
    ...(placeId === undefined ? {} : { ":place": text(placeId) }),
  };
  return { update: `${TAKE} REMOVE ${placeId === undefined ? "#line" : "#line[0]"}`, condition: `${condition} AND ${line}`, values };
}

/** The conditional writes of a lock item, each one atomic on the server. */
export const lockWrites = {
  /**
   * Takes a free key (no item yet, or one whose hold was released), drawing the next fencing token: with `placeId`, as
   * the head of the line, which it leaves; without, only while the line is empty.
   */
  takeFree: (hold: NewHold, placeId?: string): LockWrite => take(hold, "attribute_not_exists(#owner)", placeId),
  /** Takes over a hold whose record version stayed `seenVersion` for a whole lease, drawing the next fencing token (`placeId` as in `takeFree`). */
  takeOver: (hold: NewHold, seenVersion: string, placeId?: string): LockWrite => take(hold, "#version = :seen", placeId, { ":seen": text(seenVersion) }),
  /** One more level of the owner's hold, as it was read (`seenVersion`), with the lease at `leaseMs` from now. */
  reenter: (ownerSecret: string, seenVersion: string, leaseMs: number): LockWrite => ({
    update: "SET #count = #count + :one, #lease = :lease, #version = :version",
    condition: "#owner = :owner AND #version = :seen",
    values: { ":owner": text(ownerSecret), ":seen": text(seenVersion), ":one": number(1), ":lease": number(leaseMs), ":version": freshVersion() },
  }),
  /** Restarts the owner's lease at `leaseMs` from now, when that is no shorter than the lease it has. */
  renew: (ownerSecret: string, leaseMs: number): LockWrite => ({
    update: "SET #lease = :lease, #version = :version",
    condition: "#owner = :owner AND #lease <= :lease",
    values: { ":owner": text(ownerSecret), ":lease": number(leaseMs), ":version": freshVersion() },
  }),
  /** Restarts the owner's lease at the (longer) length it has. */
  renewKeepingLease: (ownerSecret: string): LockWrite => ({
    update: "SET #version = :version",
    condition: "#owner = :owner",
    values: { ":owner": text(ownerSecret), ":version": freshVersion() },
  }),
  /** Drops one level of the owner's hold when it holds the key `holdCount` (> 1) times. */
  releaseOne: (ownerSecret: string, holdCount: number): LockWrite => ({
    update: "SET #count = :less, #version = :version",
    condition: "#owner = :owner AND #count = :count",
    values: { ":owner": text(ownerSecret), ":count": number(holdCount), ":less": number(holdCount - 1), ":version": freshVersion() },
  }),
  /** Frees the key whoever holds it (the owner's own release is `plainWrites.releaseLast`); the fencing counter stays. */
  forceRelease: (): LockWrite => ({
    update: "REMOVE #owner, #holder, #count, #lease SET #version = :version",
    condition: "attribute_exists(#owner)",
    values: { ":version": freshVersion() },
  }),
} as const;
