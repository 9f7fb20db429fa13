import { describe, expect, it } from "vitest";
import { keySlot } from "./key-slot.js";
import { RedisKeyLayout } from "./redis-key-layout.js";

describe("keySlot", () => {
  it("matches the slots Redis documents", () => {
    expect(keySlot("123456789")).toBe(0x31c3);
    expect(keySlot("foo")).toBe(12182);
    expect(keySlot("{user1000}.following")).toBe(keySlot("{user1000}.followers"));
  });

  it("hashes the whole key when the braces are empty", () => {
    expect(keySlot("{}foo")).not.toBe(keySlot(""));
  });

  it("puts a lock's hash, fencing counter and release channel in one slot", () => {
    const layout = new RedisKeyLayout("app");
    for (const key of ["orders", "a}b", "ünïcode", "x{y}z"]) {
      const slot = keySlot(layout.lockKey(key));
      expect([keySlot(layout.queueKey(key)), keySlot(layout.releaseChannel(key))]).toEqual([slot, slot]);
    }
    expect(layout.lockKey("orders")).toBe("{app:orders}:lock");
  });
});
