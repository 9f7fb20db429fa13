import { randomUUID } from "node:crypto";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { LinePlace } from "./lock-item.js";
import type { LockWrite } from "./lock-writes.js";

const text = (value: string): AttributeValue => ({ S: value });

/** The most places a line holds: about 100 bytes each, so a full line stays far below DynamoDB's 400 KB item limit. */
export const MAX_LINE_PLACES = 1_000;

/**
 * The conditional writes of a key's line of waiters. None touches the hold's `recordVersion`: a dead holder's lease
 * keeps running out however busy its line is. A place is found by its index as read, and each write checks the index
 * still holds that place (a place ahead that left shifts it; the waiter then reads again).
 */
export const lineWrites = {
  /** A new place at the end of the line, unless it is full (the item is created when the key was never used). */
  join: (placeId: string, leaseMs: number): LockWrite => ({
    update: "SET #line = list_append(if_not_exists(#line, :empty), :places)",
    condition: `attribute_not_exists(#line[${MAX_LINE_PLACES - 1}])`,
    values: {
      ":empty": { L: [] },
      ":places": { L: [{ M: { placeId: text(placeId), leaseMs: { N: String(leaseMs) }, recordVersion: text(randomUUID()) } }] },
    },
  }),
  /** Restarts the lease of the place at `index`, a fresh version that every waiter behind sees. */
  refresh: (index: number, placeId: string): LockWrite => ({
    update: `SET #line[${index}].#version = :version`,
    condition: `#line[${index}].#place = :place`,
    values: { ":place": text(placeId), ":version": text(randomUUID()) },
  }),
  /** Takes the place at `index` out of the line (an abandoned wait, or a re-entry that needed no place). */
  leave: (index: number, placeId: string): LockWrite => ({
    update: `REMOVE #line[${index}]`,
    condition: `#line[${index}].#place = :place`,
    values: { ":place": text(placeId) },
  }),
  /** Takes out the head's place when it is still the one whose version was seen unchanged for its whole lease. */
  dropLapsedHead: (head: LinePlace): LockWrite => ({
    update: "REMOVE #line[0]",
    condition: "#line[0].#place = :place AND #line[0].#version = :seen",
    values: { ":place": text(head.id), ":seen": text(head.version) },
  }),
} as const;
