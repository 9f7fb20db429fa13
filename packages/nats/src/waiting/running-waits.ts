/**
 * The native waits of a driver still running. An aborted wait takes its place in a line back before it ends, so the
 * driver's `close()` waits for them (the provider aborts them all first) before it closes the connection.
 */
export class RunningWaits {
  readonly #waits = new Set<Promise<void>>();

  /** Tracks `waiting` until it settles, and returns it. */
  track<T>(waiting: Promise<T>): Promise<T> {
    const settled = waiting.then(
      () => undefined,
      () => undefined,
    );
    this.#waits.add(settled);
    void settled.then(() => this.#waits.delete(settled));
    return waiting;
  }

  /** Resolves once every tracked wait has settled. */
  async ended(): Promise<void> {
    await Promise.all(this.#waits);
  }
}
