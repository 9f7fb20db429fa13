import { describe, expect, it } from "vitest";
import { sessionLockId } from "./session-lock-id.js";
import { SessionLockIds } from "./session-lock-ids.js";

describe("SessionLockIds", () => {
  it("names a key as sessionLockId does, with the same id again while it is kept", () => {
    const ids = new SessionLockIds("locks");
    const first = ids.of("invoice:42");
    expect(first).toEqual(sessionLockId("locks", "invoice:42"));
    expect(ids.of("invoice:42")).toBe(first);
    expect(ids.of("invoice:43")).toEqual(sessionLockId("locks", "invoice:43"));
    expect(new SessionLockIds("other").of("invoice:42")).not.toEqual(first);
  });

  it("keeps the keys used most recently and forgets the least recently used one when full", () => {
    const ids = new SessionLockIds("locks", 2);
    const a = ids.of("a");
    const b = ids.of("b");
    expect(ids.of("a")).toBe(a);
    ids.of("c");
    expect(ids.of("a")).toBe(a);
    const bAgain = ids.of("b");
    expect(bAgain).not.toBe(b);
    expect(bAgain).toEqual(b);
  });
});
