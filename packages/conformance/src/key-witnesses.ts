import { Witness, type WitnessReport } from "./witness.js";

/** One `Witness` per key, for contenders that hold several keys at once: each key's critical sections are checked alone. */
export class KeyWitnesses {
  readonly #byKey = new Map<string, Witness>();

  enter(contender: string, fencingToken: bigint | null, count = 1, key = ""): void {
    this.of(key).enter(contender, fencingToken, count);
  }

  exit(contender: string, key = ""): void {
    this.of(key).exit(contender);
  }

  /** The witness of `key`, made on first use. */
  of(key: string): Witness {
    let witness = this.#byKey.get(key);
    if (witness === undefined) {
      witness = new Witness();
      this.#byKey.set(key, witness);
    }
    return witness;
  }

  /** Every key's report added up. */
  report(): WitnessReport {
    let [overlaps, staleWrites, entries] = [0, 0, 0];
    for (const witness of this.#byKey.values()) {
      const report = witness.report();
      overlaps += report.overlaps;
      staleWrites += report.staleWrites;
      entries += report.entries;
    }
    return { overlaps, staleWrites, entries };
  }
}
