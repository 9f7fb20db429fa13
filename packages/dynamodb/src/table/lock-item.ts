import type { AttributeValue } from "@aws-sdk/client-dynamodb";

/** The table's only key: a string partition key. */
export const KEY_ATTRIBUTE = "lockKey";

/**
 * Placeholders of every attribute of a lock item, for expressions (`#owner` is `ownerSecret`). The item outlives its
 * holds: a free key keeps `lockKey`, `fencingToken` and `recordVersion`, and loses the hold's other attributes.
 */
export const LOCK_ATTRIBUTE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  "#key": KEY_ATTRIBUTE,
  "#owner": "ownerSecret",
  "#holder": "holder",
  "#count": "holdCount",
  "#lease": "leaseMs",
  "#version": "recordVersion",
  "#token": "fencingToken",
});

/** A lock item as read: the hold's attributes are absent while the key is free. */
export interface LockItem {
  readonly key: string;
  readonly fencingToken: bigint;
  readonly recordVersion: string;
  readonly hold: LockItemHold | undefined;
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
  };
}
