import type { LockSubject } from "./lock-subject.js";

/** Cumulative server-side counts that a scenario reads right before and right after its measured window. */
export interface ServerCounter<S extends LockSubject = LockSubject> {
  /** Every count by name (e.g. `requests`), as the server reports it now; reported per operation as `<name>/op` or `<name>/acq`. */
  read(subject: S): Promise<Readonly<Record<string, number>>>;
  /** What the counter's own reading adds to each count between two readings (subtracted from the difference). */
  readonly readingCost: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

/** `after - before - readingCost` for each count, divided by `per` (at least 1), named `<count>/<unit>`. */
export function countsPer(
  readingCost: Readonly<Record<string, number>>,
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
  per: number,
  unit: string,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([name, value]) => [`${name}/${unit}`, (value - (before[name] ?? 0) - (readingCost[name] ?? 0)) / Math.max(1, per)]),
  );
}
