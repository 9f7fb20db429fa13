/** What a driver's release answers for one key. */
export interface ReleaseOutcome {
  readonly held: boolean;
  readonly holdCount: number;
}

/** The owner's last level was released: the key is free. */
export const FREED: ReleaseOutcome = Object.freeze({ held: true, holdCount: 0 });

/** The owner did not hold the key: nothing changed. */
export const NOT_HELD: ReleaseOutcome = Object.freeze({ held: false, holdCount: 0 });
