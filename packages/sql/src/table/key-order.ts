import { compareKeys } from "@distlock/core/internal";

/**
 * The indexes of `keys` in the one global key order (UTF-8 bytes), the order every set locks its rows in: two sets then
 * never each hold a row the other waits for.
 */
export function keyOrder(keys: readonly string[]): number[] {
  return keys.map((_, i) => i).sort((a, b) => compareKeys(keys[a] as string, keys[b] as string));
}

/** `values`, answered for the indexes of `order` in that order, put back at those indexes. */
export function restoreOrder<T>(order: readonly number[], values: readonly T[]): T[] {
  const restored: T[] = new Array(values.length);
  order.forEach((index, i) => {
    restored[index] = values[i] as T;
  });
  return restored;
}
