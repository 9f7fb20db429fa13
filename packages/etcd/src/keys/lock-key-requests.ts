import { CompareResult, CompareTarget, type ICompare, type IRangeRequest, SortOrder, SortTarget } from "etcd3";
import { lockPrefix, memberKey, prefixRangeEnd } from "./lock-keys.js";

/** How many lock keys keep their request parts; past that the cache starts over (a bound, not an eviction policy). */
const CACHED_KEYS = 1_024;

/** The parts of etcd requests that depend on one lock key alone, frozen: etcd3 and protobufjs only read them. */
export interface LockKeyRequests {
  /** `<prefix>/<key>/`. */
  readonly prefix: Buffer;
  /** The end of the range of every key under `prefix`. */
  readonly end: Buffer;
  /** No key (holder or waiter) under the prefix: the condition of a fresh take. */
  readonly nobodyUnder: ICompare;
  /** The key under the prefix created first: the holder. */
  readonly firstCreated: IRangeRequest;
}

/** A key's request parts, and the member key it was last taken with. */
type CachedKey = LockKeyRequests & { member?: { leaseId: string; suffix: number; bytes: Buffer } };

/**
 * The request parts of recently used lock keys, built once per key instead of once per call: a lock taken and released
 * over and over (the common case) sends the same buffers every time. The member key of the last lease and suffix a key
 * was taken on is kept the same way.
 */
export class LockKeyRequestCache {
  readonly #prefix: string;
  readonly #keys = new Map<string, CachedKey>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  of(key: string): LockKeyRequests {
    return this.#entry(key);
  }

  /** `<prefix>/<key>/<leaseHex>[-<suffix>]` (see `memberKey`). */
  memberKey(key: string, leaseId: string, suffix: number): Buffer {
    const entry = this.#entry(key);
    const known = entry.member;
    if (known !== undefined && known.leaseId === leaseId && known.suffix === suffix) return known.bytes;
    const bytes = memberKey(entry.prefix, leaseId, suffix);
    entry.member = { leaseId, suffix, bytes };
    return bytes;
  }

  #entry(key: string): CachedKey {
    const known = this.#keys.get(key);
    if (known !== undefined) return known;
    if (this.#keys.size >= CACHED_KEYS) this.#keys.clear();
    const prefix = lockPrefix(this.#prefix, key);
    const end = prefixRangeEnd(prefix);
    const entry = {
      prefix,
      end,
      nobodyUnder: Object.freeze({ key: prefix, range_end: end, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }),
      firstCreated: Object.freeze({ key: prefix, range_end: end, sort_target: SortTarget.Create, sort_order: SortOrder.Ascend, limit: 1 }),
    };
    this.#keys.set(key, entry);
    return entry;
  }
}
