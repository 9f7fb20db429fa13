import { randomUUID } from "node:crypto";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { FreedKey } from "../holds/freed-keys.js";
import type { LockItem } from "./lock-item.js";
import type { NewHold } from "./lock-writes.js";

/** One conditional PutItem of a whole lock item: it changes nothing unless `condition` holds. */
export interface LockPut {
  /** Every attribute but the key. */
  readonly item: Readonly<Record<string, AttributeValue>>;
  readonly condition: string;
  readonly values: Readonly<Record<string, AttributeValue>>;
  /** The item as the put leaves it. */
  readonly written: LockItem;
}

/** The conditional puts of a lock item. */
export const lockPuts = {
  /**
   * Takes again a key this process freed (see `FreedKeys`), drawing the next fencing token, as one PutItem that needs
   * no update expression and returns nothing. It holds only while the item is as the release left it: the same record
   * version (so free, with the counter at `freed.fencingToken`) and nobody in line (a line of places would be lost with
   * the item it replaces); the item has no other attributes.
   */
  retakeFreed: (key: string, hold: NewHold, freed: FreedKey): LockPut => {
    const written: LockItem = {
      key,
      fencingToken: freed.fencingToken + 1n,
      recordVersion: randomUUID(),
      hold: { ownerSecret: hold.ownerSecret, holder: hold.holder, holdCount: 1, leaseMs: hold.leaseMs },
      line: [],
    };
    return {
      item: {
        ownerSecret: { S: hold.ownerSecret },
        holder: { S: hold.holder },
        holdCount: { N: "1" },
        leaseMs: { N: String(hold.leaseMs) },
        recordVersion: { S: written.recordVersion },
        fencingToken: { N: String(written.fencingToken) },
      },
      condition: "#version = :freed AND attribute_not_exists(#line[0])",
      values: { ":freed": { S: freed.recordVersion } },
      written,
    };
  },
} as const;
