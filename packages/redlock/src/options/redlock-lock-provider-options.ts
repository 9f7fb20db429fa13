import type { DriverLockProviderOptions } from "@distlock/core";
import type { LockUrl } from "@distlock/core/driver";
import type { Redis } from "ioredis";

/** Options of `RedlockLockProvider`; give `url` or `clients`, not both. */
export interface RedlockLockProviderOptions extends DriverLockProviderOptions {
  /** `redlock://h1:p1,h2:p2,...`: one independent Redis master per host; the provider creates and closes the connections. */
  url?: string | LockUrl;
  /** Independent ioredis clients you own, one per master: the provider uses them (and a duplicate each for pub/sub) but never quits them. */
  clients?: readonly Redis[];
  /** Namespace of every key and channel: `{<prefix>:<key>}:lock`. No braces. @default "distlock-redlock" */
  prefix?: string;
  /** How long connecting to a node may take, for connections the provider creates. @default 5000 */
  connectTimeoutMs?: number;
  /** Longest wait for one node's answer; a slower node counts as an error vote. Capped at a tenth of the lease for acquire and renew. @default 250 */
  nodeTimeoutMs?: number;
  /** Clock drift assumed per lease, as a fraction of the TTL; never less than core's `DRIFT_FACTOR`. @default 0.01 */
  driftFactor?: number;
  /** Clock drift assumed per lease on top of `driftFactor`, in ms; never less than core's `DRIFT_FLOOR_MS`. @default 2 */
  driftFloorMs?: number;
  /** Longest random pause before retrying after a split vote (several contenders each took some nodes). @default 50 */
  retryJitterMs?: number;
  /** Issue fencing tokens (the nodes store the token the client proposes, no extra round trip); false gives `fencingToken: null`. @default true */
  fencing?: boolean;
  /**
   * Hand a lock out only once every node voted (or timed out), so that an uncontended owner holds every node it could
   * get and a minority that drops its copy early (clock drift, a restart without persistence) still leaves it a
   * majority. false decides as soon as a majority of nodes granted a free key with no other answer in, as other Redlock
   * clients do: faster, and a slow or stopped minority no longer delays each acquire up to `nodeTimeoutMs`, but in the
   * moment before the slower nodes run the attempt, the hold rests on a bare majority. See "Acquire" in the README.
   * @default true
   */
  awaitEveryVote?: boolean;
  /** How long a release channel stays subscribed after its last waiter left. @default 2000 */
  unsubscribeDelayMs?: number;
  /** Most leases one renewal script call per node extends. @default 1000 */
  renewBatchSize?: number;
  /**
   * How long a waiter's place in a node's queue lasts without a refresh (a waiter refreshes it every third of this):
   * a crashed waiter holds up the ones behind it at most this long. @default 3000
   */
  waiterLeaseMs?: number;
  /**
   * How many times in a row a hold this process took on a quorum may pass to another acquire of this process with no
   * server call while waiters of other processes are queued; then it goes back to the nodes, which hand it to the head
   * of their queues. 0 keeps strict FIFO across processes. Passes need fencing (`fencing: true`). See "Process cohorts"
   * in the README. @default 16
   */
  localPasses?: number;
}

/** The default of every option of `RedlockLockProviderOptions` that has one. */
export const DEFAULT_REDLOCK_LOCK_OPTIONS: Readonly<Required<Omit<RedlockLockProviderOptions, "url" | "clients" | "holderLabel">>> = Object.freeze({
  prefix: "distlock-redlock",
  connectTimeoutMs: 5_000,
  nodeTimeoutMs: 250,
  driftFactor: 0.01,
  driftFloorMs: 2,
  retryJitterMs: 50,
  fencing: true,
  awaitEveryVote: true,
  unsubscribeDelayMs: 2_000,
  renewBatchSize: 1_000,
  waiterLeaseMs: 3_000,
  localPasses: 16,
});

/** `RedlockLockProviderOptions` after validation: every default applied, and either the URL parsed or the caller's clients. */
export type ResolvedRedlockLockOptions = typeof DEFAULT_REDLOCK_LOCK_OPTIONS &
  Readonly<{ holderLabel: string | undefined } & ({ url: LockUrl; clients: undefined } | { url: undefined; clients: readonly Redis[] })>;
