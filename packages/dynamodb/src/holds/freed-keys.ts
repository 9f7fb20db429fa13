/** A key as this process's release left it: free, with this fencing counter and record version. */
export interface FreedKey {
  readonly fencingToken: bigint;
  readonly recordVersion: string;
}

/** Keys remembered at most; the oldest is forgotten first (its next take then goes the usual way). */
const MAX_REMEMBERED = 10_000;

/**
 * The keys this process holds or freed last, with the fencing token of the hold: a key it freed and takes again can
 * be written whole (`plainWrites.retakeFreed`), on the condition that its record version is still the one the release
 * wrote. Every write of a hold stores a fresh version, so an unchanged version means nobody took, renewed or
 * force-released the key since, and its counter is still the token of the hold released.
 */
export class FreedKeys {
  readonly #held = new Map<string, { readonly ownerSecret: string; readonly fencingToken: bigint }>();
  readonly #freed = new Map<string, FreedKey>();

  /** `ownerSecret` was granted `key` with `fencingToken`. */
  granted(key: string, ownerSecret: string, fencingToken: bigint): void {
    this.#freed.delete(key);
    this.#held.delete(key);
    this.#held.set(key, { ownerSecret, fencingToken });
    if (this.#held.size > MAX_REMEMBERED) this.#held.delete(this.#held.keys().next().value as string);
  }

  /** The release of `ownerSecret`'s last level of `key` took effect, storing `recordVersion`. */
  freed(key: string, ownerSecret: string, recordVersion: string): void {
    const held = this.#held.get(key);
    this.#held.delete(key);
    if (held?.ownerSecret !== ownerSecret) return;
    this.#freed.set(key, { fencingToken: held.fencingToken, recordVersion });
    if (this.#freed.size > MAX_REMEMBERED) this.#freed.delete(this.#freed.keys().next().value as string);
  }

  /** How this process left `key` when it freed it last, if nothing of it was learnt since; forgotten once asked for. */
  take(key: string): FreedKey | undefined {
    const freed = this.#freed.get(key);
    this.#freed.delete(key);
    return freed;
  }

  /** Forgets `key` (a write or read showed it changed). */
  forget(key: string): void {
    this.#held.delete(key);
    this.#freed.delete(key);
  }
}
