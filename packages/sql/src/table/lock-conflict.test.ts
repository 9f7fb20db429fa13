import { describe, expect, it } from "vitest";
import { isLockConflict } from "./lock-conflict.js";

describe("isLockConflict", () => {
  it("recognises the deadlock and serialization failures of pg and mysql2, and nothing else", () => {
    expect(isLockConflict(Object.assign(new Error("deadlock detected"), { code: "40P01" }))).toBe(true);
    expect(isLockConflict(Object.assign(new Error("could not serialize access"), { code: "40001" }))).toBe(true);
    expect(isLockConflict(Object.assign(new Error("Deadlock found"), { code: "ER_LOCK_DEADLOCK", errno: 1213, sqlState: "40001" }))).toBe(true);
    expect(isLockConflict(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isLockConflict(Object.assign(new Error("Query inactivity timeout"), { code: "PROTOCOL_SEQUENCE_TIMEOUT" }))).toBe(false);
    expect(isLockConflict(undefined)).toBe(false);
    expect(isLockConflict("40P01")).toBe(false);
  });
});
