import { keySlot } from "./key-slot.js";

/** Index groups of `keys`, one per script call: one Cluster slot each (one group without a cluster), at most `size` long. */
export function slotBatches(keys: readonly string[], cluster: boolean, size: number): number[][] {
  const bySlot = new Map<number, number[]>();
  keys.forEach((key, index) => {
    const slot = cluster ? keySlot(key) : 0;
    const group = bySlot.get(slot) ?? [];
    if (group.length === 0) bySlot.set(slot, group);
    group.push(index);
  });
  return [...bySlot.values()].flatMap((group) => Array.from({ length: Math.ceil(group.length / size) }, (_, i) => group.slice(i * size, (i + 1) * size)));
}
