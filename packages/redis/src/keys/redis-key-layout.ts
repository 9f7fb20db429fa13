/**
 * Names of everything one lock uses on the server. All share the hash tag `{<prefix>:<key>}`, so a
 * lock's hash, its fencing counter and its release channel live in one Redis Cluster slot.
 */
export class RedisKeyLayout {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
    Object.freeze(this);
  }

  /** Hash with the holder's owner secret, label, hold count and fencing token; carries the lease TTL. */
  lockKey(key: string): string {
    return `${this.#tag(key)}:lock`;
  }

  /** The key's fencing counter; it never expires, so tokens never repeat. */
  fenceKey(key: string): string {
    return `${this.#tag(key)}:fence`;
  }

  /** Pub/sub channel on which releases of the key are announced. */
  releaseChannel(key: string): string {
    return `${this.#tag(key)}:released`;
  }

  #tag(key: string): string {
    return `{${this.prefix}:${key}}`;
  }
}
