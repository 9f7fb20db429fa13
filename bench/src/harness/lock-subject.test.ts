import { describe, expect, it } from "vitest";
import { type LockSubject, permitsOf } from "./lock-subject.js";

const subject = (id: string, permits?: number): LockSubject => ({
  id,
  name: id,
  role: "peer",
  settings: "",
  permits,
  open: () => Promise.reject(new Error("never opened")),
});

describe("permitsOf", () => {
  it("is 1 for locks, which admit one holder", () => {
    expect(permitsOf([subject("a"), subject("b")])).toBe(1);
  });

  it("is a semaphore's permits when every subject has the same", () => {
    expect(permitsOf([subject("a", 4), subject("b", 4)])).toBe(4);
  });

  it("refuses subjects that admit different numbers of holders, whose rows could not be compared", () => {
    expect(() => permitsOf([subject("lock"), subject("semaphore", 4)])).toThrow(/different numbers of holders: 1, 4/);
  });
});
