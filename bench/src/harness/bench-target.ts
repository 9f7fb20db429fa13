import { type BenchRow, type BenchTable, runFailure } from "./bench-row.js";
import { formatNumber } from "./format-number.js";

/** One metric of one subject in one table. */
export interface MetricRef {
  readonly table: string;
  readonly subject: string;
  readonly metric: string;
}

/**
 * A number the issues asked for: a metric (or its ratio to the same metric of other subjects, or of the same subject in
 * another table) that must lie within `min`..`max`. Against several subjects, every ratio that could be measured must
 * (a peer that never got the key has no hand-off to compare with, and one whose workers got stuck or failed has none
 * worth comparing with).
 */
export interface BenchTarget {
  /** The target in the issue's words, e.g. "uncontended ≥ 0.9× the raw floor". */
  readonly claim: string;
  readonly value: MetricRef;
  /** Divide by these (same metric); omitted fields default to the value's. */
  readonly versus?: { readonly table?: string; readonly subjects?: readonly string[] };
  readonly min?: number;
  readonly max?: number;
}

/** A target checked against one run. */
export interface TargetOutcome {
  readonly claim: string;
  /** Undefined when a number it needs was not measured. */
  readonly met: boolean | undefined;
  /** e.g. "0.93× (raw floor)". */
  readonly measured: string;
}

/** Checks `target` against `tables`. */
export function evaluateTarget(target: BenchTarget, tables: readonly BenchTable[]): TargetOutcome {
  const row = (ref: MetricRef): BenchRow | undefined => tables.find((t) => t.id === ref.table)?.rows.find((r) => r.subject === ref.subject);
  const read = (ref: MetricRef) => row(ref)?.metrics[ref.metric];
  const value = read(target.value);
  const within = (x: number) => (target.min === undefined || x >= target.min) && (target.max === undefined || x <= target.max);
  if (target.versus === undefined) {
    const met = value === undefined || Number.isNaN(value) ? undefined : within(value);
    return { claim: target.claim, met, measured: value === undefined ? "not measured" : formatNumber(value) };
  }
  const table = target.versus.table ?? target.value.table;
  const ratios = (target.versus.subjects ?? [target.value.subject]).map((subject) => {
    const ref = { table, subject, metric: target.value.metric };
    const baseRow = row(ref);
    const failure = baseRow === undefined ? undefined : runFailure(baseRow);
    const base = failure === undefined ? baseRow?.metrics[ref.metric] : undefined;
    return {
      subject: `${table === target.value.table ? subject : `${subject}, ${table}`}${failure === undefined ? "" : `: ${failure}`}`,
      ratio: value === undefined || base === undefined ? Number.NaN : value / base,
    };
  });
  const measured = ratios.map(({ subject, ratio }) => `${Number.isNaN(ratio) ? "–" : `${ratio.toFixed(2)}×`} (vs ${subject})`).join(", ");
  const measuredRatios = ratios.filter(({ ratio }) => Number.isFinite(ratio));
  const met = measuredRatios.length === 0 ? undefined : measuredRatios.every(({ ratio }) => within(ratio));
  return { claim: target.claim, met, measured };
}
