import type { LinePlace } from "../table/lock-item.js";
import { type DriftAllowance, LeaseObservations } from "./lease-observations.js";

/**
 * The lease clock of places in line, judged as holds are (`LeaseObservations`): a place whose version this process has
 * seen unchanged for its lease × (1 + driftRate) + driftMarginMs has lapsed (its waiter died or stopped), and may be
 * taken out of the line. A live waiter refreshes its place every third of its lease.
 */
export class PlaceLeases {
  readonly #observations: LeaseObservations;

  constructor(allowance: DriftAllowance) {
    this.#observations = new LeaseObservations(allowance);
  }

  /** Milliseconds until `place` may be judged lapsed; 0 once it may. Place ids are drawn per wait, so they key the sightings alone. */
  untilLapse(place: LinePlace): number {
    return this.#observations.untilTakeover(this.#observations.see(place.id, place.version, place.leaseMs));
  }
}
