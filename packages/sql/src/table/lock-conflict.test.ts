import { describe, expect, it } from "vitest";
import { isLockConflict, LOCK_CONFLICT_RETRIES, retryingLockConflicts } from "./lock-conflict.js";

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

describe("retryingLockConflicts", () => {
  const deadlock = () => Object.assign(new Error("Deadlock found when trying to get lock; try restarting transaction"), { errno: 1213, sqlState: "40001" });
  const failingFirst = (times: number, error: () => Error) => {
    let calls = 0;
    const statement = async () => {
      calls += 1;
      if (calls <= times) throw error();
      return "done";
    };
    return { statement, calls: () => calls };
  };

  it("sends a statement the database rolled back to break a conflict again, until it goes through", async () => {
    const { statement, calls } = failingFirst(2, deadlock);
    expect(await retryingLockConflicts(statement)).toBe("done");
    expect(calls()).toBe(3);
  });

  it("gives up with the conflict after LOCK_CONFLICT_RETRIES more tries", async () => {
    const { statement, calls } = failingFirst(Number.POSITIVE_INFINITY, deadlock);
    await expect(retryingLockConflicts(statement)).rejects.toMatchObject({ sqlState: "40001" });
    expect(calls()).toBe(1 + LOCK_CONFLICT_RETRIES);
  });

  it("never sends again after any other failure", async () => {
    const { statement, calls } = failingFirst(1, () => Object.assign(new Error("duplicate key"), { code: "23505" }));
    await expect(retryingLockConflicts(statement)).rejects.toMatchObject({ code: "23505" });
    expect(calls()).toBe(1);
  });
});
