import { describe, expect, it } from "vitest";
import { keyOfLockKey, lockKey, lockKeyPrefix } from "./lock-keys.js";

describe("lock keys in the bucket", () => {
  it("encodes any key into the characters bucket keys allow, and back", () => {
    for (const key of ["orders:42", "a b/c.d>*", "ключ", "🔒", "x".repeat(256)]) {
      expect(lockKey(key)).toMatch(/^lock\.[0-9a-f]+$/);
      expect(keyOfLockKey(lockKey(key))).toBe(key);
    }
  });

  it("keeps prefixes as prefixes and sorts as UTF-8 bytes do", () => {
    expect(lockKey("orders:42").startsWith(lockKeyPrefix("orders:"))).toBe(true);
    expect(lockKey("order").startsWith(lockKeyPrefix("orders"))).toBe(false);
    const keys = ["\uffff", "😀", "b", "a", "ab"];
    const byBytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(keys.map(lockKey).sort().map(keyOfLockKey)).toEqual(byBytes);
  });
});
