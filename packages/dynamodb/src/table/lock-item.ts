import type { AttributeValue } from "@aws-sdk/client-dynamodb";

/** The table's only key: a string partition key. */
export const KEY_ATTRIBUTE = "lockKey";

/**
 * Placeholders of every attribute of a lock item, for expressions (`#owner` is `ownerSecret`). The item outlives its
 * holds: a free key keeps `lockKey`, `fencingToken`, `recordVersion` and `line`, and loses the hold's other attributes.
 * A place in `line` is a map of `placeId`, `leaseMs` and its own `recordVersion` (the same placeholders reach them).
 */
export const LOCK_ATTRIBUTE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  "#key": KEY_ATTRIBUTE,
  "#owner": "ownerSecret",
  "#holder": "holder",
  "#count": "holdCount",
  "#lease": "leaseMs",
  "#version": "recordVersion",
  "#token": "fencingToken",
  "#line": "line",
  "#place": "placeId",
});

/** A lock item as read: the hold's attributes are absent while the key is free. */
export interface LockItem {
  readonly key: string;
  readonly fencingToken: bigint;
  readonly recordVersion: string;
  readonly hold: LockItemHold | undefined;
  /** The waiters' places, first come first: only the head may take the key (see `LineWaiter`). */
  readonly line: readonly LinePlace[];
}

/** One waiter's place in line, leased like a hold: its version changes on every refresh, so a dead waiter's place lapses. */
export interface LinePlace {
  /** Random per wait; not the owner secret, so reading the line reveals no credential. */
  readonly id: string;
  readonly leaseMs: number;
  readonly version: string;
}

/** The attributes of a live hold. */
export interface LockItemHold {
  readonly ownerSecret: string | undefined;
  readonly holder: string;
  readonly holdCount: number;
  readonly leaseMs: number;
}

/** Reads an item as DynamoDB returns it; `ownerSecret` is undefined when the projection left it out. */
export function lockItemFrom(attributes: Record<string, AttributeValue>): LockItem {
  const holder = attributes.holder?.S;
  const holdCount = attributes.holdCount?.N;
  const leaseMs = attributes.leaseMs?.N;
  return {
    key: attributes[KEY_ATTRIBUTE]?.S ?? "",
    fencingToken: BigInt(attributes.fencingToken?.N ?? "0"),
    recordVersion: attributes.recordVersion?.S ?? "",
    hold:
      holder === undefined || holdCount === undefined || leaseMs === undefined
        ? undefined
        : { ownerSecret: attributes.ownerSecret?.S, holder, holdCount: Number(holdCount), leaseMs: Number(leaseMs) },
    line: (attributes.line?.L ?? []).map(linePlaceFrom),
  };
}

function linePlaceFrom(value: AttributeValue): LinePlace {
  const place = value.M ?? {};
  return { id: place.placeId?.S ?? "", leaseMs: Number(place.leaseMs?.N ?? "0"), version: place.recordVersion?.S ?? "" };
}
