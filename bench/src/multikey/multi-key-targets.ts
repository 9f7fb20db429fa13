import type { BenchTarget } from "../harness/index.js";
import { KEY_COUNTS } from "./multi-key-subjects.js";

/** The subject names every multi-key table shares. */
export const MULTI_KEY_NAMES = {
  distlock: "distlock acquireAll",
  peers: ["@sesamecare-oss/redlock acquire([…])", "redlock-universal acquireBatch"],
} as const;

/** The contended table's worker count: two workers over the same set of keys. */
export const MULTI_KEY_WORKERS = [2] as const;
/** How many keys the contended workers take together. */
export const CONTENDED_KEY_COUNT = 8;

/** Issue #38's target: at every N, uncontended acquire+release of N keys at least as fast as the better peer. */
export const MULTI_KEY_TARGETS: readonly BenchTarget[] = [
  ...KEY_COUNTS.map(
    (count): BenchTarget => ({
      claim: `N=${count} keys uncontended: ops/s ≥ 1.0× the better peer`,
      value: { table: `multikey-n${count}-uncontended`, subject: MULTI_KEY_NAMES.distlock, metric: "ops/s" },
      versus: { subjects: [...MULTI_KEY_NAMES.peers], paired: true },
      min: 1,
    }),
  ),
  {
    claim: `W=2 over the same ${CONTENDED_KEY_COUNT} keys: acquisitions/s ≥ 1.0× the better peer`,
    value: { table: "multikey-contended-w2", subject: MULTI_KEY_NAMES.distlock, metric: "acq/s" },
    versus: { subjects: [...MULTI_KEY_NAMES.peers] },
    min: 1,
  },
];
