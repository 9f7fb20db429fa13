import { believed, type HoldRecord, sinceOrigin } from "./hold-records.js";
import type { Violation } from "./violation.js";

/** What the holds believed at once: the most permits, and every entry into a critical section that went over `capacity`. */
export interface HeldAtOnce {
  /** The most permits believed held at one instant (1 for a lock used by one holder at a time). */
  readonly peak: number;
  readonly overlaps: readonly Violation[];
}

interface Belief {
  readonly record: HoldRecord;
  readonly from: number;
  readonly to: number;
}

const describe = (belief: Belief, origin: number): string =>
  `${belief.record.hold} (token ${belief.record.token}, ${belief.record.count} held, believed until ${sinceOrigin(belief.to, origin)})`;

/**
 * Sweeps the holds' beliefs (`believed`) in time order, adding each hold's `count` while it believes. Beliefs that meet
 * within `epsilon` (clock tolerance between processes) do not count as overlapping: each is shortened by half of it at
 * both ends. A lock is the case `capacity` 1, count 1: any two beliefs that overlap by more than `epsilon`.
 */
export function heldAtOnce(holds: Iterable<HoldRecord>, capacity: number, epsilon: number, origin: number): HeldAtOnce {
  const beliefs = [...holds]
    .map((record) => ({ record, ...believed(record) }))
    .filter((belief) => belief.to - belief.from > epsilon)
    .sort((a, b) => a.from - b.from);
  const overlaps: Violation[] = [];
  let open: Belief[] = [];
  let peak = 0;
  for (const current of beliefs) {
    open = open.filter((earlier) => earlier.to - epsilon / 2 > current.from + epsilon / 2);
    open.push(current);
    const held = open.reduce((sum, belief) => sum + belief.record.count, 0);
    peak = Math.max(peak, held);
    if (held <= capacity) continue;
    const others = open.filter((belief) => belief !== current).map((belief) => describe(belief, origin));
    overlaps.push({
      kind: "overlap",
      detail:
        `${current.record.hold} (token ${current.record.token}, ${current.record.count} held) entered its critical section at ` +
        `${sinceOrigin(current.from, origin)} while ${others.join(", ")} believed they held theirs: ${held} held at once, ${capacity} exist`,
    });
  }
  return { peak, overlaps };
}
