import type { KvEntry } from "@nats-io/kv";
import { describe, expect, it } from "vitest";
import { grantToken, grantValue, holdOf, lastTokenOf, markerValue } from "./hold-record.js";

/** The entry a read would give for `value` stored as `revision`. */
function entryOf(value: string, revision: number, operation: KvEntry["operation"] = "PUT"): KvEntry {
  const bytes = new TextEncoder().encode(value);
  return {
    bucket: "b",
    key: "k",
    rawKey: "k",
    value: bytes,
    length: bytes.length,
    created: new Date(0),
    revision,
    operation,
    json: <T>() => JSON.parse(value) as T,
    string: () => value,
  };
}

describe("hold records", () => {
  it("a grant's token is above the revision it was written over and the key's token before it", () => {
    expect(grantToken(41, 7n)).toBe(42n);
    expect(grantToken(41, 90n)).toBe(91n);
  });

  it("every reader sees the token the grant wrote, whatever revision its stream gave the write", () => {
    const value = JSON.stringify(grantValue("secret", "holder", 1_000, 91n));
    expect(holdOf(entryOf(value, 50))?.fencingToken).toBe(91n);
    expect(holdOf(entryOf(value, 120))?.fencingToken).toBe(91n);
  });

  it("a release's delete marker keeps the token of the hold it ended", () => {
    const value = JSON.stringify(markerValue(91n));
    expect(holdOf(entryOf(value, 60, "DEL"))).toBeUndefined();
    expect(lastTokenOf(entryOf(value, 60, "DEL"))).toBe(91n);
  });

  it("a grant stored by an older version, without a token, has its revision as token", () => {
    const value = JSON.stringify({ s: "secret", h: "holder", c: 1, t: 1_000 });
    expect(holdOf(entryOf(value, 33))?.fencingToken).toBe(33n);
  });
});
