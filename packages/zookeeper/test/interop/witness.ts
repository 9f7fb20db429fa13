import { readFileSync } from "node:fs";

/** One hold as a side wrote it to the witness file: CLOCK_MONOTONIC nanoseconds, and distlock's fencing token. */
export interface WitnessedHold {
  readonly side: "curator" | "distlock";
  readonly start: bigint;
  readonly end: bigint;
  readonly token: bigint | undefined;
}

export function readWitness(file: string): WitnessedHold[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [side, start, end, token] = line.split(" ");
      return {
        side: side as WitnessedHold["side"],
        start: BigInt(start ?? ""),
        end: BigInt(end ?? ""),
        token: token === undefined ? undefined : BigInt(token),
      };
    })
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/** Pairs of holds that overlapped in time: each hold must end before the next one starts. */
export function overlaps(holds: readonly WitnessedHold[]): number {
  let count = 0;
  for (let i = 1; i < holds.length; i++) if ((holds[i - 1] as WitnessedHold).end > (holds[i] as WitnessedHold).start) count++;
  return count;
}

/** How often the lock passed from one side to the other. */
export function handovers(holds: readonly WitnessedHold[]): number {
  let count = 0;
  for (let i = 1; i < holds.length; i++) if ((holds[i - 1] as WitnessedHold).side !== (holds[i] as WitnessedHold).side) count++;
  return count;
}

/** The most holds at one instant. */
export function maxConcurrent(holds: readonly WitnessedHold[]): number {
  const edges = holds.flatMap((hold) => [
    { at: hold.start, step: 1 },
    { at: hold.end, step: -1 },
  ]);
  // An end before a start at the same instant: touching holds do not overlap.
  edges.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.step - b.step));
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.step;
    most = Math.max(most, now);
  }
  return most;
}

/** What a run's witness shows: holds per side, pairs that overlapped, hand-overs between the sides, the most at once. */
export function witnessCounts(holds: readonly WitnessedHold[]) {
  const distlock = holds.filter((hold) => hold.side === "distlock").length;
  return { curator: holds.length - distlock, distlock, overlaps: overlaps(holds), handovers: handovers(holds), maxConcurrent: maxConcurrent(holds) };
}
