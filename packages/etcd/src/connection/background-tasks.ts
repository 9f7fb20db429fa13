/** Fire-and-forget calls (lease revokes) whose failures are ignored but which `close()` still waits for. */
export class BackgroundTasks {
  readonly #pending = new Set<Promise<unknown>>();

  /** Runs `operation` to its end in the background. */
  track(operation: Promise<unknown>): void {
    const settled = operation.catch(() => undefined);
    this.#pending.add(settled);
    void settled.finally(() => this.#pending.delete(settled));
  }

  /** Resolves once every tracked call has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}
