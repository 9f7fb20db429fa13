/**
 * Names of everything one lock uses on the server. All share the hash tag `{<prefix>:<key>}`, so a
 * lock's record, wait queue and release channel live in one Redis Cluster slot.
 */
export class RedisKeyLayout {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
    Object.freeze(this);
  }

  /**
   * The lock's record (`lock-record.ts`): its hold and lease deadline, or the last token of a free lock. It never
   * expires, so tokens never repeat.
   */
  lockKey(key: string): string {
    return `${this.tag(key)}:lock`;
  }

  /** The ids of waiters queued for the key: a list in arrival order here, a sorted set by ticket in @distlock/redlock. */
  queueKey(key: string): string {
    return `${this.tag(key)}:queue`;
  }

  /** Hash of each queued waiter's entry: its expiry, ttl, owner secret and holder label. */
  waitersKey(key: string): string {
    return `${this.tag(key)}:waiters`;
  }

  /** Pub/sub channel on which releases and hand-offs of the key are announced. */
  releaseChannel(key: string): string {
    return `${this.tag(key)}:released`;
  }

  /** A SCAN MATCH pattern for the record of every key that starts with `keyPrefix`, matched literally. */
  lockKeyPattern(keyPrefix: string): string {
    return `{${escapeGlob(`${this.prefix}:${keyPrefix}`)}*}:lock`;
  }

  /** The key whose record is `name`, or undefined when `name` is not a record of this layout. */
  keyOfLockKey(name: string): string | undefined {
    const head = `{${this.prefix}:`;
    const tail = "}:lock";
    if (!name.startsWith(head) || !name.endsWith(tail) || name.length < head.length + tail.length) return undefined;
    return name.slice(head.length, -tail.length);
  }

  /** The keys whose records are among `names` (each set of names from one server), skipping other names. */
  *keysOfLockKeys(names: Iterable<Iterable<string>>): Generator<string> {
    for (const server of names) {
      for (const name of server) {
        const key = this.keyOfLockKey(name);
        if (key !== undefined) yield key;
      }
    }
  }

  /** `{<prefix>:<key>}`: every name of the key starts with it; scripts that take only the tag derive the others. */
  tag(key: string): string {
    return `{${this.prefix}:${key}}`;
  }
}

/** `text` as a Redis glob pattern that matches it literally: `*`, `?`, `[`, `]` and `\` escaped. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
