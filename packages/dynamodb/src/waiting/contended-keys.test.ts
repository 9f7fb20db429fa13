import { describe, expect, it } from "vitest";
import { ContendedKeys } from "./contended-keys.js";

describe("ContendedKeys", () => {
  it("holds a key while any wait on it runs", () => {
    const keys = new ContendedKeys();
    keys.enter("k");
    keys.enter("k");
    keys.leave("k", 0);
    expect(keys.has("k", 60_000)).toBe(true);
    expect(keys.has("other", 0)).toBe(false);
  });

  it("still holds it for a moment after the last wait ended, then forgets it", () => {
    const keys = new ContendedKeys();
    keys.enter("k");
    keys.leave("k", 1_000);
    expect(keys.has("k", 1_999)).toBe(true);
    expect(keys.has("k", 2_000)).toBe(false);
    expect(keys.has("k", 1_500)).toBe(false);
  });
});
