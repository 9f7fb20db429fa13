import { type BenchRow, type BenchTable, runFailure } from "./bench-row.js";
import { formatNumber } from "./format-number.js";
import { pairedMetric } from "./paired-rounds.js";

/** One metric of one subject in one table. */
export interface MetricRef {
  readonly table: string;
  readonly subject: string;
  readonly metric: string;
}

/**
 * A number the issues asked for: a metric (or its ratio to, or difference from, the same metric of other subjects, or
 * of the same subject in another table) that must lie within `min`..`max`. Against several subjects, every comparison
 * that could be measured must (a peer that never got the key has no hand-off to compare with, and one whose workers got
 * stuck or failed has none worth comparing with).
 */
export interface BenchTarget {
  /** The target in the issue's words, e.g. "uncontended ≥ 0.9× the raw floor". */
  readonly claim: string;
  readonly value: MetricRef;
  /** Compare with these (same metric); omitted fields default to the value's. */
  readonly versus?: {
    readonly table?: string;
    readonly subjects?: readonly string[];
    /** Divide by them, or subtract them (what a subject adds over another, e.g. client CPU over a replay of its commands). @default "ratio" */
    readonly by?: "ratio" | "difference";
    /**
     * Read each comparison from the value's table's round-by-round companion for the value's subject (`<table>-paired…`,
     * see `pairedRoundsTable`) instead of comparing the rows' medians.
     */
    readonly paired?: boolean;
  };
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
  const pairedTable = tables.find((t) => t.pairedSubject === target.value.subject && t.id.startsWith(`${target.value.table}-paired`));
  const read = (ref: MetricRef) => row(ref)?.metrics[ref.metric];
  const value = read(target.value);
  const within = (x: number) => (target.min === undefined || x >= target.min) && (target.max === undefined || x <= target.max);
  if (target.versus === undefined) {
    const met = value === undefined || Number.isNaN(value) ? undefined : within(value);
    return { claim: target.claim, met, measured: value === undefined ? "not measured" : formatNumber(value) };
  }
  const table = target.versus.table ?? target.value.table;
  const difference = target.versus.by === "difference";
  const comparisons = (target.versus.subjects ?? [target.value.subject]).map((subject) => {
    const ref = { table, subject, metric: target.value.metric };
    const baseRow = row(ref);
    const failure = baseRow === undefined ? undefined : runFailure(baseRow);
    const base = failure === undefined ? baseRow?.metrics[ref.metric] : undefined;
    const name = `${table === target.value.table ? subject : `${subject}, ${table}`}${failure === undefined ? "" : `: ${failure}`}`;
    if (target.versus?.paired === true) {
      const paired = read({
        table: pairedTable?.id ?? `${target.value.table}-paired`,
        subject,
        metric: pairedMetric(target.value.metric, difference ? "difference" : "ratio"),
      });
      return { subject: `${name}, paired rounds`, result: failure === undefined ? (paired ?? Number.NaN) : Number.NaN };
    }
    return { subject: name, result: value === undefined || base === undefined ? Number.NaN : difference ? value - base : value / base };
  });
  const show = (result: number) => (Number.isNaN(result) ? "–" : difference ? `${result >= 0 ? "+" : ""}${formatNumber(result)}` : `${result.toFixed(2)}×`);
  const measured = comparisons.map(({ subject, result }) => `${show(result)} (vs ${subject})`).join(", ");
  const results = comparisons.filter(({ result }) => Number.isFinite(result));
  const met = results.length === 0 ? undefined : results.every(({ result }) => within(result));
  return { claim: target.claim, met, measured };
}
