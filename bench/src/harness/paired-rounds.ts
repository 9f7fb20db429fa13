import type { BenchRow, BenchTable } from "./bench-row.js";
import { percentile } from "./stats.js";
import { median, type TurnSample } from "./turn-summary.js";

/** The metrics compared round by round: a rate and two latencies (as ratios) and a cost (as a difference). */
const RATIO_OF = "ops/s";
const MEDIAN_OF = "p50 µs";
const TAIL_OF = "p99 µs";
const DIFFERENCE_OF = "client CPU µs/op";

/** The name of a paired table's column for `metric` compared as a ratio or a difference (what targets read). */
export function pairedMetric(metric: string, by: "ratio" | "difference"): string {
  return `${metric} ${by}`;
}

/**
 * One subject against each other subject of an interleaved scenario, round by round: in every round, its ops/s and its
 * turn's p50 and p99 divided by the other's and its client CPU per op minus the other's, both turns taken back to back; each row
 * is the median over the rounds. A burst of load on a shared machine moves both turns of a round alike, so these medians scatter far less
 * from run to run than the ratio (or difference) of the two subjects' own medians.
 */
export function pairedRoundsTable(
  scenario: { id: string; title: string },
  subject: string,
  turnsBySubject: ReadonlyMap<string, readonly TurnSample[]>,
  id = `${scenario.id}-paired`,
): BenchTable {
  const own = turnsBySubject.get(subject) ?? [];
  // Each of its turns' percentiles once, not once per other subject: a distinct-keys turn holds ~100,000 latencies to sort.
  const ownMedians = own.map(middle);
  const ownTails = own.map(tail);
  const rows: BenchRow[] = [...turnsBySubject]
    .filter(([name]) => name !== subject)
    .map(([name, other]) => ({
      scenario: "paired rounds",
      subject: name,
      metrics: {
        [pairedMetric(RATIO_OF, "ratio")]: median(own.map((turn, round) => opsPerSecond(turn) / opsPerSecond(other[round]))),
        [pairedMetric(MEDIAN_OF, "ratio")]: median(ownMedians.map((ownMedian, round) => ownMedian / middle(other[round]))),
        [pairedMetric(TAIL_OF, "ratio")]: median(ownTails.map((ownTail, round) => ownTail / tail(other[round]))),
        [pairedMetric(DIFFERENCE_OF, "difference")]: median(own.map((turn, round) => cpuPerOp(turn) - cpuPerOp(other[round]))),
      },
    }));
  return {
    id,
    pairedSubject: subject,
    title: `${scenario.title}: ${subject} against each subject in the same rounds`,
    rows,
    notes: [
      `- ${pairedMetric(RATIO_OF, "ratio")}: the median over the rounds of ${subject}'s ops/s ÷ the subject's in the same round; ${pairedMetric(MEDIAN_OF, "ratio")} and ${pairedMetric(TAIL_OF, "ratio")}: the same for each turn's own p50 and p99 latency; ${pairedMetric(DIFFERENCE_OF, "difference")}: the median of ${subject}'s client CPU µs/op − the subject's in the same round. A burst of load on the shared machine moves both turns of a round alike, so these scatter less from run to run than comparisons of the rows' medians.`,
    ],
  };
}

function opsPerSecond(turn: TurnSample | undefined): number {
  return turn === undefined ? Number.NaN : turn.ops.length / turn.seconds;
}

function middle(turn: TurnSample | undefined): number {
  return turn === undefined ? Number.NaN : percentile(turn.ops, 50);
}

function tail(turn: TurnSample | undefined): number {
  return turn === undefined ? Number.NaN : percentile(turn.ops, 99);
}

function cpuPerOp(turn: TurnSample | undefined): number {
  return turn?.perOp[DIFFERENCE_OF] ?? Number.NaN;
}
