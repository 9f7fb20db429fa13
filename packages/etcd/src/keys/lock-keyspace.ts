import { CompareResult, CompareTarget, type Etcd3, type ICompare, type IKeyValue, type IPutRequest, type ITxnResponse, SortOrder, SortTarget } from "etcd3";
import type { CallOptions } from "../connection/call-options.js";
import { LockKeyRequestCache } from "./lock-key-requests.js";
import { prefixRangeEnd, reservedPrefix } from "./lock-keys.js";

/** One member key write of `LockKeyspace.writeAll`. */
export interface MemberWrite {
  /** The lock key the member key belongs to. */
  readonly key: string;
  readonly member: Buffer;
  /** The value to put; undefined deletes the member key. */
  readonly value: Buffer | undefined;
  /** The lease to put the key on; undefined keeps the key's lease. */
  readonly leaseId?: string | undefined;
  /** The write's condition: the member key unchanged since this mod revision; undefined: no key at all under the lock prefix (a fresh take). */
  readonly modRevision?: string | undefined;
}

/** How `writeAll` ended: every write done at `revision`, or none and per write the key that stood in its way. */
export type WriteAllOutcome =
  | { readonly done: true; readonly revision: bigint }
  | { readonly done: false; readonly current: ReadonlyArray<IKeyValue | undefined> };

/** Where a member key stands in its lock's queue. */
export interface QueuePosition {
  /** The member key created just before mine (the one to wait for), if any. */
  readonly predecessor: IKeyValue | undefined;
  /** My member key as it is now; undefined once its lease expired or it was deleted. */
  readonly mine: IKeyValue | undefined;
  /** The store revision the answer was read at. */
  readonly revision: bigint;
}

/**
 * The lock's key layout as etcd transactions: member keys `<prefix>/<key>/<leaseHex>`, holder = the
 * lowest create revision under `<prefix>/<key>/` (Go's `concurrency.Mutex`). Every call carries a deadline.
 */
export class LockKeyspace {
  readonly #client: Etcd3;
  readonly #prefix: string;
  readonly #callOptions: CallOptions;
  readonly #keys: LockKeyRequestCache;

  constructor(client: Etcd3, prefix: string, callOptions: CallOptions) {
    this.#client = client;
    this.#prefix = prefix;
    this.#callOptions = callOptions;
    this.#keys = new LockKeyRequestCache(prefix);
  }

  /** The member key `leaseId` uses for `key` in `suffix`. */
  memberKey(key: string, leaseId: string, suffix = 0): Buffer {
    return this.#keys.memberKey(key, leaseId, suffix);
  }

  /**
   * Every write of `writes` in one txn, if each one's condition holds (see `MemberWrite`); else none, and for each write
   * what stood in its way: the lock's holder (lowest create revision) for a fresh take, the member key as it is now
   * otherwise. No two writes may name the same member key.
   */
  async writeAll(writes: readonly MemberWrite[]): Promise<WriteAllOutcome> {
    const response = await this.#txn({
      compare: writes.map((write) =>
        write.modRevision === undefined ? this.#keys.of(write.key).nobodyUnder : unchangedSince(write.member, write.modRevision),
      ),
      success: writes.map((write) =>
        write.value === undefined ? { request_delete_range: { key: write.member } } : { request_put: put(write.member, write.value, write.leaseId) },
      ),
      failure: writes.map((write) => ({
        request_range: write.modRevision === undefined ? this.#keys.of(write.key).firstCreated : { key: write.member },
      })),
    });
    if (response.succeeded) return { done: true, revision: BigInt(response.header.revision) };
    return { done: false, current: writes.map((_, i) => response.responses[i]?.response_range.kvs[0]) };
  }

  /** Go's `Mutex.tryAcquire`: puts my member key unless it exists, and returns my create revision and the current holder. */
  async enqueue(key: string, member: Buffer, value: Buffer, leaseId: string): Promise<{ revision: bigint; holder: IKeyValue | undefined }> {
    const { firstCreated } = this.#keys.of(key);
    const response = await this.#txn({
      compare: [{ key: member, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: member, value, lease: leaseId } }, { request_range: firstCreated }],
      failure: [{ request_range: { key: member } }, { request_range: firstCreated }],
    });
    const holder = response.responses[1]?.response_range.kvs[0];
    const existing = response.succeeded ? undefined : response.responses[0]?.response_range.kvs[0];
    return { revision: BigInt(existing?.create_revision ?? response.header.revision), holder };
  }

  /** Go's `waitDeletes` step: the key created last before `revision`, read together with my own key. */
  async position(key: string, member: Buffer, revision: bigint): Promise<QueuePosition> {
    const { prefix, end } = this.#keys.of(key);
    const response = await this.#txn({
      success: [
        {
          request_range: {
            key: prefix,
            range_end: end,
            sort_target: SortTarget.Create,
            sort_order: SortOrder.Descend,
            limit: 1,
            max_create_revision: String(revision - 1n),
          },
        },
        { request_range: { key: member } },
      ],
    });
    return {
      predecessor: response.responses[0]?.response_range.kvs[0],
      mine: response.responses[1]?.response_range.kvs[0],
      revision: BigInt(response.header.revision),
    };
  }

  /** The current holder of `key` (lowest create revision), if any. */
  async holder(key: string): Promise<IKeyValue | undefined> {
    return (await this.holderAndMembers(key)).holder;
  }

  /** The current holder of `key` and how many member keys (holder and waiters) its prefix has, in one read. */
  async holderAndMembers(key: string): Promise<{ holder: IKeyValue | undefined; members: number }> {
    const response = await this.#client.kv.range(this.#keys.of(key).firstCreated, this.#callOptions);
    return { holder: response.kvs[0], members: Number(response.count) };
  }

  /**
   * Every member key of every lock whose key starts with `keyPrefix`, read at one revision (etcd matches bytes, never
   * patterns). The reserved keys under `<prefix>/\0` (semaphores) sort first and are left out.
   */
  async membersUnder(keyPrefix: string): Promise<IKeyValue[]> {
    const start = Buffer.from(`${this.#prefix}/${keyPrefix}`);
    const first = keyPrefix === "" ? prefixRangeEnd(reservedPrefix(this.#prefix)) : start;
    const response = await this.#client.kv.range({ key: first, range_end: prefixRangeEnd(start) }, this.#callOptions);
    return response.kvs;
  }

  /** Several keys read at one revision; undefined where a key does not exist. */
  async getMany(keys: readonly Buffer[]): Promise<Array<IKeyValue | undefined>> {
    if (keys.length === 0) return [];
    const response = await this.#txn({ success: keys.map((key) => ({ request_range: { key } })) });
    return keys.map((_, i) => response.responses[i]?.response_range.kvs[0]);
  }

  /**
   * Writes `value` (and `leaseId`, else the key keeps its lease) if the key was not modified since
   * `modRevision`; otherwise returns the key as it is now (undefined if gone).
   */
  async putIfUnchanged(
    member: Buffer,
    modRevision: string,
    value: Buffer,
    leaseId?: string,
  ): Promise<{ done: true; revision: string } | { done: false; current: IKeyValue | undefined }> {
    const response = await this.#txn({
      compare: [unchangedSince(member, modRevision)],
      success: [{ request_put: put(member, value, leaseId) }],
      failure: [{ request_range: { key: member } }],
    });
    if (response.succeeded) return { done: true, revision: response.header.revision };
    return { done: false, current: response.responses[0]?.response_range.kvs[0] };
  }

  /** Deletes the key, whatever it holds; true if there was one. */
  async deleteMember(member: Buffer): Promise<boolean> {
    const response = await this.#client.kv.deleteRange({ key: member }, this.#callOptions);
    return response.deleted !== "0";
  }

  /** Deletes the key if it is still the incarnation created at `createRevision`; true if deleted. */
  async deleteIfCreatedAt(member: Buffer, createRevision: bigint | string): Promise<boolean> {
    const response = await this.#txn({
      compare: [{ key: member, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: String(createRevision) }],
      success: [{ request_delete_range: { key: member } }],
    });
    return response.succeeded;
  }

  /** Milliseconds left on a lease, in the whole seconds etcd reports (0 once expired); a key without a lease (`"0"`) never expires. */
  async leaseRemainingMs(leaseId: string): Promise<number> {
    if (leaseId === "0") return Number.POSITIVE_INFINITY;
    const response = await this.#client.leaseClient.leaseTimeToLive({ ID: leaseId }, this.#callOptions);
    return Math.max(0, Number(response.TTL)) * 1000;
  }

  #txn(request: Parameters<Etcd3["kv"]["txn"]>[0]): Promise<ITxnResponse> {
    return this.#client.kv.txn(request, this.#callOptions);
  }
}

/** The member key not modified since `modRevision`. */
function unchangedSince(member: Buffer, modRevision: string): ICompare {
  return { key: member, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: modRevision };
}

/** A put of `value` on `leaseId`, or on the key's own lease when undefined. */
function put(member: Buffer, value: Buffer, leaseId: string | undefined): IPutRequest {
  return leaseId === undefined ? { key: member, value, ignore_lease: true } : { key: member, value, lease: leaseId };
}
