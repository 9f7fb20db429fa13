/** Lease length when `ttlMs` is not given. */
export const DEFAULT_TTL_MS = 30_000;
/** Longest lease and wait accepted: the largest delay a Node.js timer can keep. */
export const MAX_DURATION_MS = 2_147_483_647;
/** Longest key accepted, in characters. */
export const MAX_KEY_LENGTH = 256;
/**
 * Most keys one `acquireAll`/`tryAcquireAll` takes. Every key is a hold with its own lease and renewal; sets larger than
 * this are better locked by a name that stands for the whole set.
 */
export const MAX_MULTI_KEYS = 64;
/** How many keys `list` returns when no `limit` is given. */
export const DEFAULT_LIST_LIMIT = 1000;
/** The largest `limit` `list` accepts: a bigger answer belongs in a paged export, not in one call. */
export const MAX_LIST_LIMIT = 100_000;
/** Longest explicit owner or holder label accepted, in characters. */
export const MAX_OWNER_LENGTH = 256;
/** The watchdog renews after this fraction of the lease has passed. */
export const RENEW_FRACTION = 1 / 3;
/** Clock drift assumed per lease: `ttl * DRIFT_FACTOR + DRIFT_FLOOR_MS` is subtracted from every local deadline. */
export const DRIFT_FACTOR = 0.01;
/** See `DRIFT_FACTOR`. */
export const DRIFT_FLOOR_MS = 2;
/** Longest sleep between two attempts of a waiter whose backend cannot notify. */
export const MAX_POLL_INTERVAL_MS = 500;
/** First sleep between two attempts of a waiter whose backend cannot notify. */
export const MIN_POLL_INTERVAL_MS = 5;
/** Most permits a semaphore may have. */
export const MAX_PERMITS = 1_000_000;
/**
 * Most readers a read-write lock lets in at once. A read-write lock is a semaphore with this many permits underneath:
 * a reader takes 1, a writer takes all of them. The same in every process: another value is a `PermitsMismatchError`.
 */
export const MAX_READERS = 1_000_000;
/** What core puts before a read-write lock's name to name its semaphore; semaphore names may not start with it. */
export const READ_WRITE_NAME_PREFIX = "rwlock:";
/** Longest read-write lock name accepted, in characters: a key's, less `READ_WRITE_NAME_PREFIX`. */
export const MAX_READ_WRITE_NAME_LENGTH = MAX_KEY_LENGTH - READ_WRITE_NAME_PREFIX.length;
