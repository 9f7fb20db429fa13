import type { BenchTarget } from "./bench-target.js";

/** Whose targets to check in which tables of a contended sweep. */
export interface SweepTargetSpec {
  /** The sweep's id: its tables are `<id>-contended-w<W>`. */
  readonly id: string;
  /** The subject the targets are about. */
  readonly subject: string;
  readonly peers: readonly string[];
  readonly workerCounts: readonly number[];
  /** Also ask for a wait p99 no longer than the better peer's. @default false */
  readonly waitP99?: boolean;
  /** How many times the better peer's acquisitions/s the subject must reach. @default 1 */
  readonly minRatio?: number;
  /** The worker counts at which the subject's client CPU per acquisition must also be at most the better peer's. @default [] */
  readonly clientCpuAt?: readonly number[];
}

/**
 * At every W: acquisitions/s at least `minRatio` times the better peer's, fairness min/max ≥ 0.5 and, if asked, wait
 * p99 at most the better peer's (and, at the W asked for, client CPU per acquisition at most the better peer's). A peer whose workers got stuck or failed is left out of the comparison (see `evaluateTarget`), so
 * "the better peer" is the better one that did not get stuck.
 */
export function sweepTargets(spec: SweepTargetSpec): BenchTarget[] {
  return spec.workerCounts.flatMap((w): BenchTarget[] => {
    const at = (metric: string) => ({ table: `${spec.id}-contended-w${w}`, subject: spec.subject, metric });
    const wait: BenchTarget[] =
      spec.waitP99 === true ? [{ claim: `W=${w}: wait p99 ≤ the better peer's`, value: at("wait p99 ms"), versus: { subjects: spec.peers }, max: 1 }] : [];
    const cpu: BenchTarget[] = (spec.clientCpuAt ?? []).includes(w)
      ? [{ claim: `W=${w}: client CPU per acquisition ≤ the better peer's`, value: at("client CPU µs/acq"), versus: { subjects: spec.peers }, max: 1 }]
      : [];
    const minRatio = spec.minRatio ?? 1;
    return [
      {
        claim: `W=${w}: acquisitions/s ≥ ${minRatio.toFixed(1)}× the better peer that did not get stuck`,
        value: at("acq/s"),
        versus: { subjects: spec.peers },
        min: minRatio,
      },
      { claim: `W=${w}: fairness min/max ≥ 0.5`, value: at("fairness min/max"), min: 0.5 },
      ...wait,
      ...cpu,
    ];
  });
}
