/** Every lock's bucket key starts with this token, every semaphore's with the other: the two never share a key. */
const LOCK_TOKEN = "lock";
const SEMAPHORE_TOKEN = "sem";
const LINE_TOKEN = "line";

/**
 * The bucket key of a lock: `lock.<hex of the key's UTF-8 bytes>`. Bucket keys allow only `[-/_=.a-zA-Z0-9]`; lower-case
 * hex keeps any key, keeps a key's prefixes as prefixes of its encoding, and sorts as UTF-8 bytes do.
 */
export function lockKey(key: string): string {
  return `${LOCK_TOKEN}.${hexOf(key)}`;
}

/** What `list` matches bucket keys against for a caller's prefix (the empty prefix matches every lock). */
export function lockKeyPrefix(prefix: string): string {
  return `${LOCK_TOKEN}.${hexOf(prefix)}`;
}

/** The subject filter of every lock's bucket key, for listing. */
export const ALL_LOCK_KEYS = `${LOCK_TOKEN}.>`;

/** The caller's key back from its bucket key. */
export function keyOfLockKey(bucketKey: string): string {
  return Buffer.from(bucketKey.slice(LOCK_TOKEN.length + 1), "hex").toString("utf8");
}

function hexOf(text: string): string {
  return Buffer.from(text, "utf8").toString("hex");
}

/** The bucket key of a semaphore's record: `sem.<hex of its name's UTF-8 bytes>`. */
export function semaphoreKey(name: string): string {
  return `${SEMAPHORE_TOKEN}.${hexOf(name)}`;
}

/** The bucket key of a lock's line of waiters: `line.<hex of the key's UTF-8 bytes>`. */
export function lineKey(key: string): string {
  return `${LINE_TOKEN}.${hexOf(key)}`;
}
