/** What a witness saw: both counts must stay 0. */
export interface WitnessReport {
  /** Times a contender entered while the capacity was already in use (for a mutex: while another was inside). */
  readonly overlaps: number;
  /** Writes refused because their fencing token was lower than one already accepted. */
  readonly staleWrites: number;
  /** Critical sections completed. */
  readonly entries: number;
}

/**
 * An overlap witness plus a fenced register. Contenders (in this process, or in workers over IPC,
 * which waits for each answer) call `enter` after acquiring and `exit` before releasing, so any
 * real overlap is seen in this process's own order of events, with no clocks compared.
 * With a `capacity` above 1 it counts permits: an overlap is an entry that takes the permits inside past the capacity.
 */
export class Witness {
  readonly #capacity: number;
  readonly #inside = new Map<string, number>();
  #permitsInside = 0;
  #peak = 0;
  #overlaps = 0;
  #staleWrites = 0;
  #entries = 0;
  #highestToken: bigint | undefined;
  readonly #order: string[] = [];

  /** `capacity`: how many permits may be inside at once (1 for a mutex). */
  constructor(capacity = 1) {
    this.#capacity = capacity;
  }

  /** `count`: permits the contender holds. Pass a null token where grants overlap (semaphores): their tokens are not a register's order. */
  enter(contender: string, fencingToken: bigint | null, count = 1): void {
    if (this.#permitsInside + count > this.#capacity) this.#overlaps += 1;
    this.#inside.set(contender, count);
    this.#permitsInside += count;
    this.#peak = Math.max(this.#peak, this.#permitsInside);
    this.#entries += 1;
    this.#order.push(contender);
    if (fencingToken === null) return;
    if (this.#highestToken !== undefined && fencingToken < this.#highestToken) this.#staleWrites += 1;
    else this.#highestToken = fencingToken;
  }

  exit(contender: string): void {
    this.#permitsInside -= this.#inside.get(contender) ?? 0;
    this.#inside.delete(contender);
  }

  report(): WitnessReport {
    return { overlaps: this.#overlaps, staleWrites: this.#staleWrites, entries: this.#entries };
  }

  /** Most permits inside at once. */
  peak(): number {
    return this.#peak;
  }

  /** Contenders in the order they entered. */
  order(): readonly string[] {
    return this.#order;
  }
}
