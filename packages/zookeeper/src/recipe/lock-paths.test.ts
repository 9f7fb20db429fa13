import { describe, expect, it } from "vitest";
import { lockLayout, lockPath } from "./lock-layout.js";
import { decodeSegment, protectedPrefix, sortLine, waitersBehind } from "./lock-paths.js";

describe("Curator's lock layout", () => {
  it("puts key k at <chroot>/locks/<k>, one URI-encoded segment that decodes back", () => {
    expect(lockPath(lockLayout("/distlock", "mutex"), "orders")).toBe("/distlock/locks/orders");
    for (const key of ["a/b", ".", "..", "ünï cödé", "100%"]) {
      const segment = lockPath(lockLayout("/c", "mutex"), key).slice("/c/locks/".length);
      expect(segment).not.toMatch(/\/|^\.{1,2}$/);
      expect(decodeSegment(segment)).toBe(key);
    }
  });

  it("names nodes as Curator's protected mode does", () => {
    expect(protectedPrefix("0f6e")).toBe("_c_0f6e-lock-");
  });

  it("orders a line by the sequence after the last lock name, whatever the uuid, as Curator's StandardLockInternalsDriver", () => {
    const line = ["_c_ffff-lock-0000000003", "_c_0000-lock-0000000010", "_c_aaaa-lock-0000000001"];
    expect(sortLine(line)).toEqual(["_c_aaaa-lock-0000000001", "_c_ffff-lock-0000000003", "_c_0000-lock-0000000010"]);
  });
});

describe("Curator's LeaderLatch layout", () => {
  it("puts latch k at <chroot>/latches/<k> and names and orders its nodes as LeaderLatch does", () => {
    const latch = lockLayout("/distlock", "leader-latch");
    expect(lockPath(latch, "scheduler")).toBe("/distlock/latches/scheduler");
    expect(protectedPrefix("0f6e", latch.lockName)).toBe("_c_0f6e-latch-");
    const line = ["_c_ffff-latch-0000000003", "_c_0000-try-latch-0000000002", "_c_aaaa-latch-0000000010"];
    expect(sortLine(line, latch.lockName)).toEqual(["_c_0000-try-latch-0000000002", "_c_ffff-latch-0000000003", "_c_aaaa-latch-0000000010"]);
    expect(waitersBehind(sortLine(line, latch.lockName).reverse(), latch.lockName)).toBe(1);
  });
});

describe("waiters in a line", () => {
  it("counts the nodes behind the first, but not attempts (tagged nodes that never wait)", () => {
    const line = sortLine(["_c_a-lock-0000000001", "_c_b-try-lock-0000000002", "_c_c-lock-0000000003"]);
    expect(waitersBehind(line)).toBe(1);
    expect(waitersBehind([])).toBe(0);
  });
});
