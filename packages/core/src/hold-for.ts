/** What `holdFor` needs of a lock or a permit. */
interface Releasable {
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

/** Runs `fn(hold, hold.signal)` and releases `hold` in `finally`; a failed release after a failed `fn` does not hide its error. */
export async function holdFor<H extends Releasable, T>(hold: H, fn: (hold: H, signal: AbortSignal) => Promise<T> | T): Promise<T> {
  let result: T;
  try {
    result = await fn(hold, hold.signal);
  } catch (error) {
    await hold.release().catch(() => undefined);
    throw error;
  }
  await hold.release();
  return result;
}
