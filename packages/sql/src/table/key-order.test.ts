import { describe, expect, it } from "vitest";
import { keyOrder, restoreOrder } from "./key-order.js";

describe("keyOrder", () => {
  it("orders keys by their UTF-8 bytes and puts answers back where each key was named", () => {
    // In UTF-16 code units the emoji (a surrogate pair, 0xD83D 0xDE00) sorts before U+FF5E; by its bytes it sorts after.
    const keys = ["b", "\u{1F600}", "a", "\uFF5E"];
    const order = keyOrder(keys);
    expect(order.map((i) => keys[i])).toEqual(["a", "b", "\uFF5E", "\u{1F600}"]);
    expect(
      restoreOrder(
        order,
        order.map((i) => `answer for ${keys[i]}`),
      ),
    ).toEqual(keys.map((key) => `answer for ${key}`));
  });
});
