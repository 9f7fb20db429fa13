import { randomUUID } from "node:crypto";
import type { AttributeValue, AttributeValueUpdate, ExpectedAttributeValue } from "@aws-sdk/client-dynamodb";
import type { FreedKey } from "../holds/freed-keys.js";
import type { LockItem } from "./lock-item.js";
import type { NewHold } from "./lock-writes.js";

/** One conditional PutItem of a whole lock item: it changes nothing unless every attribute is as `expected` says. */
export interface PlainPut {
  /** Every attribute but the key. */
  readonly item: Readonly<Record<string, AttributeValue>>;
  readonly expected: Readonly<Record<string, ExpectedAttributeValue>>;
  /** The item as the put leaves it. */
  readonly written: LockItem;
}

/** One conditional UpdateItem of named attributes: it changes nothing unless every attribute is as `expected` says. */
export interface PlainUpdate {
  readonly updates: Readonly<Record<string, AttributeValueUpdate>>;
  readonly expected: Readonly<Record<string, ExpectedAttributeValue>>;
  /** The record version the update stores. */
  readonly version: string;
}

/**
 * The two writes of the uncontended path, in DynamoDB's conditional parameters without expressions (`Expected`,
 * `AttributeUpdates`, older than expressions and still part of the API): the same conditions, each a plain equality or
 * absence of one top-level attribute, with no expression for the server to parse. Every other write is an expression
 * (`lockWrites`, `lineWrites`): a request cannot mix the two kinds.
 */
export const plainWrites = {
  /**
   * Takes again a key this process freed (see `FreedKeys`), drawing the next fencing token, as one PutItem that returns
   * nothing. It holds only while the item is as the release left it: the same record version (so free, with the
   * counter at `freed.fencingToken`) and no `line` (places would be lost with the item it replaces; a line emptied by
   * its last place is an empty list until a direct take removes it, so the put then fails and the take goes the usual
   * way); the item has no other attributes.
   */
  retakeFreed: (key: string, hold: NewHold, freed: FreedKey): PlainPut => {
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
      expected: { recordVersion: { Value: { S: freed.recordVersion } }, line: { Exists: false } },
      written,
    };
  },
  /** Frees the key when the owner holds it once, storing a fresh record version; the fencing counter and the line stay. */
  releaseLast: (ownerSecret: string): PlainUpdate => {
    const version = randomUUID();
    return {
      updates: {
        ownerSecret: { Action: "DELETE" },
        holder: { Action: "DELETE" },
        holdCount: { Action: "DELETE" },
        leaseMs: { Action: "DELETE" },
        recordVersion: { Action: "PUT", Value: { S: version } },
      },
      expected: { ownerSecret: { Value: { S: ownerSecret } }, holdCount: { Value: { N: "1" } } },
      version,
    };
  },
} as const;
