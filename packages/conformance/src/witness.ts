/** What a witness saw: both counts must stay 0. */
export interface WitnessReport {
  /** Times a contender entered while another was inside. */
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
 */
export class Witness {
  #inside = new Set<string>();
  #overlaps = 0;
  #staleWrites = 0;
  #entries = 0;
  #highestToken: bigint | undefined;

  enter(contender: string, fencingToken: bigint | null): void {
    if (this.#inside.size > 0) this.#overlaps += 1;
    this.#inside.add(contender);
    this.#entries += 1;
    if (fencingToken === null) return;
    if (this.#highestToken !== undefined && fencingToken < this.#highestToken) this.#staleWrites += 1;
    else this.#highestToken = fencingToken;
  }

  exit(contender: string): void {
    this.#inside.delete(contender);
  }

  report(): WitnessReport {
    return { overlaps: this.#overlaps, staleWrites: this.#staleWrites, entries: this.#entries };
  }
}
