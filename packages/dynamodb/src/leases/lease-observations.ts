/** When this process first saw one record version of a key's hold, on its own monotonic clock. */
export interface Observation {
  readonly version: string;
  /** The lease the hold had when written with this version. */
  readonly leaseMs: number;
  /** `performance.now()` after the read or write that returned this version: no earlier than its write on the server. */
  readonly seenAt: number;
}

/** How long an unchanged record version must be seen before the lease it carries is judged over. */
export interface DriftAllowance {
  /** See `DynamoDbLockProviderOptions.driftRate`. */
  readonly driftRate: number;
  /** See `DynamoDbLockProviderOptions.driftMarginMs`. */
  readonly driftMarginMs: number;
}

const MAX_OBSERVATIONS = 10_000;

/**
 * The lease clock of a store without one (after AWS's DynamoDB Lock Client): a hold is judged over only when this
 * process has seen the same record version for its lease × (1 + driftRate) + driftMarginMs on its own monotonic
 * clock. A renewal writes a new version, which starts the count again. Only durations on one machine are measured.
 */
export class LeaseObservations {
  readonly #allowance: DriftAllowance;
  readonly #seen = new Map<string, Observation>();

  constructor(allowance: DriftAllowance) {
    this.#allowance = allowance;
  }

  /** Records `version` as seen now unless it is the version already seen (whose first sighting counts); returns the sighting. */
  see(key: string, version: string, leaseMs: number, now = performance.now()): Observation {
    const known = this.#seen.get(key);
    if (known?.version === version) return known;
    const observation = { version, leaseMs, seenAt: now };
    this.#seen.delete(key);
    this.#seen.set(key, observation);
    if (this.#seen.size > MAX_OBSERVATIONS) this.#seen.delete(this.#seen.keys().next().value as string);
    return observation;
  }

  /** Whether `key` is known held by someone: its waiters read before they write. */
  has(key: string): boolean {
    return this.#seen.has(key);
  }

  /** Forgets `key` (it was seen free). */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  /** Milliseconds until the hold seen in `observation` may be taken over; 0 once it may. */
  untilTakeover(observation: Observation, now = performance.now()): number {
    const { driftRate, driftMarginMs } = this.#allowance;
    return Math.max(0, observation.seenAt + observation.leaseMs * (1 + driftRate) + driftMarginMs - now);
  }

  /** An estimate of the lease left, from the sighting's age: at least 1 and at most the lease while not over. */
  leaseLeftMs(observation: Observation, now = performance.now()): number {
    return Math.min(observation.leaseMs, Math.max(1, Math.ceil(observation.seenAt + observation.leaseMs - now)));
  }
}
