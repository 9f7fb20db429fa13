import type { DriverLockProviderOptions } from "@distlock/core";
import type { LockUrl } from "@distlock/core/driver";
import type { Cluster, Redis } from "ioredis";

/** Options of `RedisLockProvider`; give `url` or `client`, not both. */
export interface RedisLockProviderOptions extends DriverLockProviderOptions {
  /** `redis://`, `rediss://`, `redis+sentinel://h1:p1,h2:p2/<master>` or `redis+cluster://h1:p1,h2:p2`; the provider creates and closes its connections. */
  url?: string | LockUrl;
  /** An ioredis client or cluster you own: the provider uses it (and a duplicate for pub/sub) but never quits it. */
  client?: Redis | Cluster;
  /** Namespace of every key and channel: `{<prefix>:<key>}:lock`. No braces. @default "distlock" */
  prefix?: string;
  /** How long connecting to a server may take, for connections the provider creates. @default 5000 */
  connectTimeoutMs?: number;
  /** Upper bound on every server call (including time spent reconnecting); then it fails with BACKEND_UNAVAILABLE. @default 5000 */
  commandTimeoutMs?: number;
  /** How long a release channel stays subscribed after its last waiter left, saving SUBSCRIBE/UNSUBSCRIBE churn. @default 2000 */
  unsubscribeDelayMs?: number;
  /**
   * How long a waiter's entry in a key's server-side queue lives without a refresh (a waiter refreshes it every third of this,
   * or every quarter of its ttl if shorter). A crashed waiter holds its place in line at most this long. @default 3000
   */
  waiterLeaseMs?: number;
  /** Most leases one renewal script call extends. @default 1000 */
  renewBatchSize?: number;
  /** Replicas that must acknowledge a fresh acquisition (`WAIT`); 0 turns it off. Not with Redis Cluster. @default 0 */
  waitForReplicas?: number;
  /** How long `WAIT` may block. @default 1000 */
  waitForReplicasTimeoutMs?: number;
  /**
   * How many times in a row a release may pass the lock straight to a waiter of this provider ahead of waiters of other
   * providers (other processes) that queued earlier; then it goes to the head of the line. 0 keeps strict FIFO across
   * processes. A pass sends no message, so the next holder is woken in-process: within a process cohort it takes no
   * server call at all, else it is the release's own script call, which moves the hold to the waiter (new owner, new
   * fencing token); see "Process cohorts" in the README. Off with `waitForReplicas`. @default 16
   */
  localPasses?: number;
}

/** The default of every option of `RedisLockProviderOptions` that has one. */
export const DEFAULT_REDIS_LOCK_OPTIONS: Readonly<Required<Omit<RedisLockProviderOptions, "url" | "client" | "holderLabel">>> = Object.freeze({
  prefix: "distlock",
  connectTimeoutMs: 5_000,
  commandTimeoutMs: 5_000,
  unsubscribeDelayMs: 2_000,
  waiterLeaseMs: 3_000,
  renewBatchSize: 1_000,
  waitForReplicas: 0,
  waitForReplicasTimeoutMs: 1_000,
  localPasses: 16,
});

/** `RedisLockProviderOptions` after validation: every default applied, and either the URL parsed or the caller's client. */
export type ResolvedRedisLockOptions = typeof DEFAULT_REDIS_LOCK_OPTIONS &
  Readonly<{ holderLabel: string | undefined } & ({ url: LockUrl; client: undefined } | { url: undefined; client: Redis | Cluster })>;
