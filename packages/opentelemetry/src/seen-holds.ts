/**
 * Hold counts per backend and key of the grants seen, so the held gauge goes down only for a hold it counted: a lock
 * taken before instrumenting never takes it below zero.
 */
export class SeenHolds {
  readonly #byBackend = new Map<string, Map<string, number>>();

  granted(hold: { backend: string; key: string }): void {
    let keys = this.#byBackend.get(hold.backend);
    if (keys === undefined) {
      keys = new Map();
      this.#byBackend.set(hold.backend, keys);
    }
    keys.set(hold.key, (keys.get(hold.key) ?? 0) + 1);
  }

  /** True when the ended hold was counted. */
  ended(hold: { backend: string; key: string }): boolean {
    const keys = this.#byBackend.get(hold.backend);
    const count = keys?.get(hold.key) ?? 0;
    if (keys === undefined || count === 0) return false;
    if (count === 1) keys.delete(hold.key);
    else keys.set(hold.key, count - 1);
    return true;
  }
}
