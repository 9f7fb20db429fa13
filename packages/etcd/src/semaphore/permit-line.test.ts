import type { DriverPermitRequest } from "@distlock/core/driver";
import { validateKey } from "@distlock/core/internal";
import type { IKeyValue } from "etcd3";
import { describe, expect, it } from "vitest";
import { encodeMemberValue, lockPrefix, prefixRangeEnd } from "../keys/lock-keys.js";
import { fitsNow, holdersOf, type PermitLine, parseLine, storedPermits } from "./permit-line.js";
import { linePrefix, permitKey } from "./semaphore-keys.js";

const PERMITS = 3;

/** A member key as a range read returns it: `counts[i]` permits, created at revision 10 + i. */
function lineOf(counts: readonly number[], revision = "99"): PermitLine {
  const kvs = counts.map(
    (count, i): IKeyValue => ({
      key: permitKey(linePrefix("distlock", "s"), `owner-${i}`),
      value: encodeMemberValue({ owner: `owner-${i}`, holder: `host:${i}`, count, permits: PERMITS }),
      create_revision: String(10 + i),
      mod_revision: String(10 + i),
      version: "1",
      lease: "7",
    }),
  );
  return parseLine(kvs, revision);
}

const request = (count: number): DriverPermitRequest => ({ key: "s", ownerSecret: "secret", holder: "me", ttlMs: 2000, permits: PERMITS, count });

describe("a semaphore's line", () => {
  it("holds the front of the line while the counts fit; the first waiter that does not fit blocks everyone behind it", () => {
    expect(holdersOf(lineOf([1, 1, 1, 1])).length).toBe(3);
    expect(holdersOf(lineOf([2, 2, 1])).map((entry) => entry.value.count)).toEqual([2]);
    expect(holdersOf(lineOf([3])).length).toBe(1);
    expect(holdersOf(lineOf([])).length).toBe(0);
  });

  it("lets a new request in at once only when nobody waits and its count fits beside the holders", () => {
    expect(fitsNow(lineOf([1]), request(2))).toBe(true);
    expect(fitsNow(lineOf([2]), request(2))).toBe(false);
    // One permit is free, but the waiter for 2 is ahead.
    expect(fitsNow(lineOf([2, 2]), request(1))).toBe(false);
    expect(fitsNow(lineOf([]), request(PERMITS))).toBe(true);
  });

  it("reads the permit count from the member keys, and leaves out keys that are not permits", () => {
    const line = lineOf([1]);
    const foreign: IKeyValue = { ...(line.entries[0] as unknown as IKeyValue), value: Buffer.alloc(0), create_revision: "5" };
    const lockValue: IKeyValue = { ...foreign, value: encodeMemberValue({ owner: "o", holder: "h", count: 1 }) };
    const parsed = parseLine([foreign, lockValue], "42");
    expect(parsed).toEqual({ entries: [], revision: 42n });
    expect(storedPermits(parsed)).toBeUndefined();
    expect(storedPermits(line)).toBe(PERMITS);
  });

  it("keeps every line below the reserved <prefix>/\\0, out of every lock's range, and no name's line inside another's", () => {
    const line = linePrefix("distlock", "a");
    expect(line.toString()).toBe("distlock/\u0000semaphore/a\u0000");
    const nested = linePrefix("distlock", "a/b");
    expect(nested.compare(line) >= 0 && nested.compare(prefixRangeEnd(line)) < 0).toBe(false);
    // Only a lock key starting with \0 has a range `<prefix>/<key>/` that reaches the line, and lock keys refuse control characters.
    expect(line.subarray(0, lockPrefix("distlock", "\u0000semaphore").length).equals(lockPrefix("distlock", "\u0000semaphore"))).toBe(true);
    expect(() => validateKey("\u0000semaphore")).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
