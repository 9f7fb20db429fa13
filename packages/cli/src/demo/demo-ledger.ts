/** The shared resource of the demo: counts critical sections, overlaps, and writes refused for a stale fencing token. */
export class DemoLedger {
  sections = 0;
  overlaps = 0;
  staleWrites = 0;
  readonly #inside = new Set<number>();
  readonly #killed = new Set<number>();
  #highestToken = -1n;

  enter(worker: number, fencingToken: bigint): void {
    if (this.#inside.size > 0) this.overlaps += 1;
    // An entry a killed worker sent just before its death can still be read after `forget`: it never left.
    if (!this.#killed.has(worker)) this.#inside.add(worker);
    if (fencingToken < this.#highestToken) this.staleWrites += 1;
    else this.#highestToken = fencingToken;
    this.sections += 1;
  }

  exit(worker: number): void {
    this.#inside.delete(worker);
  }

  /** A worker that died inside its section leaves it, and so does any entry of it still to be read. */
  forget(worker: number): void {
    this.#killed.add(worker);
    this.#inside.delete(worker);
  }
}
