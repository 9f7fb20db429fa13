/** What a backend can promise beyond the common contract. */
export interface LockCapabilities {
  /** Fencing tokens strictly increase across successive holders of a key. */
  readonly fencing: boolean;
  /** Waiters are granted the key in arrival order. */
  readonly fifo: boolean;
  /** Expiry is computed on the server's clock, not on the client's. */
  readonly serverClock: boolean;
  /** The shortest lease the backend can keep; shorter requests are raised to it. */
  readonly minTtlMs: number;
  /** Leases are rounded up to a multiple of this. */
  readonly ttlGranularityMs: number;
  /** `list` can enumerate the held keys under a prefix; false where the server cannot name its locks (it then rejects with `UNSUPPORTED_OPERATION`). */
  readonly listing: boolean;
  /** Counting semaphores (`provider.semaphore`) are built on this backend. */
  readonly semaphore: boolean;
}

/** What a provider can do: its backend's `LockCapabilities` and what core builds on them. */
export interface ProviderCapabilities extends LockCapabilities {
  /** Read-write locks (`provider.readWriteLock`): core builds them on the backend's semaphores, so this is `semaphore`; drivers do not declare it. */
  readonly readWriteLock: boolean;
}

/** Several keys held together by one owner; `await using` releases them all. */
export interface MultiLock extends AsyncDisposable {
  /** The keys, in the order they were taken (UTF-8 byte order). */
  readonly keys: readonly string[];
  /** One lock per key, in `keys` order; each lives as a lock of its own (its own `signal`, lease and re-entry depth). */
  readonly locks: readonly Lock[];
  /** Public label of this holder. */
  readonly holder: string;
  /** Each key's fencing token (null only where `capabilities.fencing` is false). */
  readonly fencingTokens: ReadonlyMap<string, bigint | null>;
  /** Aborts with the first key's `LockLostError` when any of the holds can no longer be proven. */
  readonly signal: AbortSignal;
  /** The earliest `validUntil` of the locks. */
  readonly validUntil: number;
  /** Milliseconds left until `validUntil`, never negative (0 once any hold is lost). */
  remainingMs(): number;
  /** Extends every key's lease (owner-only); rejects with the first key's `LockLostError` if any hold is gone. */
  renew(ttlMs?: number): Promise<void>;
  /** Drops one level of every key's hold, trying each; rejects with the first failure; idempotent after success. */
  release(): Promise<void>;
}

/** The server's view of one key. Never reveals the owner secret. */
export interface LockState {
  /** The key as the caller named it. */
  readonly key: string;
  /** Public label of the current holder, e.g. "host:pid:label". */
  readonly holder: string;
  /** Reentrancy depth of the current holder. */
  readonly holdCount: number;
  /** The current holder's fencing token, or null where the backend has none. */
  readonly fencingToken: bigint | null;
  /** Milliseconds until the server frees the key unless it is renewed. */
  readonly ttlRemainingMs: number;
  /** Places in the server's line of waiters for the key (a crashed waiter's place counts until it lapses); 0 without a line (`fifo` false). */
  readonly waiters: number;
}

/** Per-call options of `acquire` and `tryAcquire`. */
export interface AcquireOptions {
  /** Lease length in ms, rounded up to the backend's granularity. @default 30_000 */
  ttlMs?: number;
  /** How long `acquire` may wait before `LockTimeoutError`; ignored by `tryAcquire`. @default unbounded */
  waitMs?: number;
  /** Cancels waiting; an aborted wait leaves no lock behind. */
  signal?: AbortSignal;
  /** Renew at ttl/3 until release. @default true */
  autoRenew?: boolean;
  /** Explicit reentrancy identity; it is the credential on the server, so keep it unguessable. */
  owner?: string;
}

/** Per-call options of `list`. */
export interface ListOptions {
  /** At most this many keys, the first in key order (UTF-8 byte order). @default 1000 */
  limit?: number;
}

/** One hold of a key; `await using` releases it. */
export interface Lock extends AsyncDisposable {
  /** The key as the caller named it. */
  readonly key: string;
  /** Public label of this holder. */
  readonly holder: string;
  /** Strictly increasing per key across holders; null only where `capabilities.fencing` is false. */
  readonly fencingToken: bigint | null;
  /** Reentrancy depth right after this acquire. */
  readonly holdCount: number;
  /** Aborts with `LockLostError` when the hold can no longer be proven. */
  readonly signal: AbortSignal;
  /** `performance.now()` deadline of the hold, conservative (clock drift subtracted). */
  readonly validUntil: number;
  /** Milliseconds left until `validUntil`, never negative. */
  remainingMs(): number;
  /** Extends the lease (owner-only); `LockLostError` if the hold is gone. */
  renew(ttlMs?: number): Promise<void>;
  /** Drops one level of the hold; idempotent after success; `LockLostError` if the server shows it was lost. */
  release(): Promise<void>;
}

/** One distributed-lock contract over every backend. */
export interface LockProvider extends AsyncDisposable {
  /** Backend name: "redis", "redlock", "etcd", "postgres", "mysql", "sqlite", "memory", ... */
  readonly backend: string;
  /** What this backend promises beyond the common contract. */
  readonly capabilities: ProviderCapabilities;
  /** Waits for the key; rejects with `LockTimeoutError` or `signal.reason`. */
  acquire(key: string, options?: AcquireOptions): Promise<Lock>;
  /** One attempt that never waits; null when the key is held by someone else. */
  tryAcquire(key: string, options?: AcquireOptions): Promise<Lock | null>;
  /** The server's view of a key, or null when nobody holds it. */
  inspect(key: string): Promise<LockState | null>;
  /**
   * The server's view of every held key that starts with `prefix` (matched literally, "" for all), in key order, at
   * most `options.limit` of them; rejects with `UNSUPPORTED_OPERATION` where `capabilities.listing` is false.
   */
  list(prefix: string, options?: ListOptions): Promise<LockState[]>;
  /** Admin escape hatch: frees the key whoever holds it; true if something was freed. */
  forceRelease(key: string): Promise<boolean>;
  /**
   * A counting semaphore: at most `permits` held at once across every process. Throws `UnsupportedOperationError` where
   * `capabilities.semaphore` is false, and `InvalidArgumentError` for bad options or a name this provider opened with
   * another permit count.
   */
  semaphore(name: string, options: SemaphoreOptions): Semaphore;
  /**
   * A read-write lock: many readers or one writer at once across every process, and a waiting writer goes before the
   * readers that came after it (where `capabilities.fifo`). Throws `UnsupportedOperationError` where
   * `capabilities.readWriteLock` is false, and `InvalidArgumentError` for a bad name.
   */
  readWriteLock(name: string): ReadWriteLock;
  /**
   * Waits for every key, all or none (see `MultiLock`): 1 to `MAX_MULTI_KEYS` distinct keys, taken in one global order
   * (UTF-8 byte order), so callers with overlapping sets never deadlock. A timeout, an abort or a failure leaves none of
   * them held. Keys the owner already holds are re-entered.
   */
  acquireAll(keys: readonly string[], options?: AcquireOptions): Promise<MultiLock>;
  /** One all-or-nothing attempt at every key that never waits: the locks, or null (and nothing held) when any key is held by another owner. */
  tryAcquireAll(keys: readonly string[], options?: AcquireOptions): Promise<MultiLock | null>;
  /** Releases what it still holds (best effort), aborts their signals, stops renewing, closes its own connections; idempotent. */
  close(): Promise<void>;
}

/** How a semaphore is opened. */
export interface SemaphoreOptions {
  /** How many permits exist; a positive integer, the same in every process that opens the name. */
  permits: number;
}

/** Per-call options of `Semaphore.acquire` and `tryAcquire`: a lock's, without `owner` (permits never re-enter). */
export interface PermitAcquireOptions extends Omit<AcquireOptions, "owner"> {
  /** How many permits to take, all or nothing; 1 to `permits`. @default 1 */
  count?: number;
}

/** One grant of `count` permits; it lives like a `Lock`, and `await using` releases it. */
export interface Permit extends AsyncDisposable {
  /** The semaphore's name. */
  readonly name: string;
  /** Permits this grant holds. */
  readonly count: number;
  /** Public label of this holder. */
  readonly holder: string;
  /** Strictly increasing per semaphore across grants; null only where `capabilities.fencing` is false. */
  readonly fencingToken: bigint | null;
  /** Aborts with `LockLostError` when the permits can no longer be proven held. */
  readonly signal: AbortSignal;
  /** `performance.now()` deadline of the lease, conservative (clock drift subtracted). */
  readonly validUntil: number;
  /** Milliseconds left until `validUntil`, never negative. */
  remainingMs(): number;
  /** Extends the lease (owner-only); `LockLostError` if the permits are gone. */
  renew(ttlMs?: number): Promise<void>;
  /** Gives the permits back; idempotent after success; `LockLostError` if the server shows they were lost. */
  release(): Promise<void>;
}

/** One holder of permits, as the server sees it. Never reveals the owner secret. */
export interface PermitHolderState {
  /** Public label of the holder. */
  readonly holder: string;
  /** Permits it holds. */
  readonly count: number;
  /** Its grant's fencing token, or null where the backend has none. */
  readonly fencingToken: bigint | null;
  /** Milliseconds until the server frees its permits unless they are renewed. */
  readonly ttlRemainingMs: number;
}

/** The server's view of one semaphore. */
export interface SemaphoreState {
  /** The semaphore's name. */
  readonly name: string;
  /** The permit count the semaphore is in use with. */
  readonly permits: number;
  /** Permits held right now (the sum of the holders' counts). */
  readonly inUse: number;
  /** Every live holder, soonest-expiring first. */
  readonly holders: readonly PermitHolderState[];
  /** Waiters in the server's line (0 without a line). */
  readonly waiters: number;
}

/** A counting semaphore of one provider; cheap to open, nothing is sent until it is used. */
export interface Semaphore {
  /** The semaphore's name. */
  readonly name: string;
  /** How many permits exist. */
  readonly permits: number;
  /** Waits for `count` permits (FIFO where `capabilities.fifo`); rejects with `LockTimeoutError` or `signal.reason`. */
  acquire(options?: PermitAcquireOptions): Promise<Permit>;
  /** One attempt that never waits; null when fewer than `count` permits are free (or others wait first). */
  tryAcquire(options?: PermitAcquireOptions): Promise<Permit | null>;
  /** The server's view, or null when nobody holds or waits. */
  inspect(): Promise<SemaphoreState | null>;
}

/** Which side of a read-write lock a hold is on. */
export type ReadWriteMode = "read" | "write";

/** Per-call options of a read-write lock's `acquire` and `tryAcquire`: a lock's, without `owner` (holds re-enter by owner scope only). */
export type ReadWriteAcquireOptions = Omit<AcquireOptions, "owner">;

/** One side of a read-write lock: `lock.read` or `lock.write`. */
export interface ReadWriteAccess {
  /** The side this takes. */
  readonly mode: ReadWriteMode;
  /**
   * Waits for this side (FIFO where `capabilities.fifo`); rejects with `LockTimeoutError`, `signal.reason`, or
   * `UpgradeRefusedError` when the owner holds read and asks for write.
   */
  acquire(options?: ReadWriteAcquireOptions): Promise<ReadWriteHold>;
  /** One attempt that never waits; null when the lock is taken (or others wait first); `UpgradeRefusedError` as `acquire`. */
  tryAcquire(options?: ReadWriteAcquireOptions): Promise<ReadWriteHold | null>;
}

/** A read-write lock of one provider; cheap to open, nothing is sent until it is used. */
export interface ReadWriteLock {
  /** The lock's name. */
  readonly name: string;
  /** Shared holds: many readers at once, none while a writer holds. */
  readonly read: ReadWriteAccess;
  /** The exclusive hold: one writer, no reader. */
  readonly write: ReadWriteAccess;
  /** The server's view, or null when nobody holds or waits. */
  inspect(): Promise<ReadWriteLockState | null>;
}

/** One hold of a read-write lock; it lives like a `Lock`, and `await using` releases it. */
export interface ReadWriteHold extends AsyncDisposable {
  /** The read-write lock's name. */
  readonly name: string;
  /** The side that was asked for. */
  readonly mode: ReadWriteMode;
  /** Public label of this holder. */
  readonly holder: string;
  /** Strictly increasing per read-write lock across grants (shared by the holds that re-enter one); null only where `capabilities.fencing` is false. */
  readonly fencingToken: bigint | null;
  /** Holds the owner has open on this grant right after this acquire, this one included (re-entry depth). */
  readonly holdCount: number;
  /** Aborts with `LockLostError` when the grant can no longer be proven held. */
  readonly signal: AbortSignal;
  /** `performance.now()` deadline of the lease, conservative (clock drift subtracted). */
  readonly validUntil: number;
  /** Milliseconds left until `validUntil`, never negative. */
  remainingMs(): number;
  /** Extends the grant's lease (owner-only); `LockLostError` if it is gone. */
  renew(ttlMs?: number): Promise<void>;
  /** Drops this hold, and the grant with the last one; idempotent after success; `LockLostError` if the grant was lost. */
  release(): Promise<void>;
}

/** One holder of a read-write lock, as the server sees it. Never reveals the owner secret. */
export interface ReadWriteHolderState {
  /** Public label of the holder. */
  readonly holder: string;
  /** Its grant's fencing token, or null where the backend has none. */
  readonly fencingToken: bigint | null;
  /** Milliseconds until the server frees the grant unless it is renewed. */
  readonly ttlRemainingMs: number;
}

/** The server's view of one read-write lock. */
export interface ReadWriteLockState {
  /** The lock's name. */
  readonly name: string;
  /** Every reader's grant, soonest-expiring first (one per grant: re-entries do not add any). */
  readonly readers: readonly ReadWriteHolderState[];
  /** The writer's grant, or null. */
  readonly writer: ReadWriteHolderState | null;
  /** Waiters in the server's line, readers and writers (0 without a line). */
  readonly waiters: number;
}
