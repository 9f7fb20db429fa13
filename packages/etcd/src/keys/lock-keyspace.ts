import { CompareResult, CompareTarget, type Etcd3, type IKeyValue, type IRangeRequest, type IRequestOp, type ITxnResponse, SortOrder, SortTarget } from "etcd3";
import { perAttemptDeadline } from "../connection/per-attempt-deadline.js";
import { lockPrefix, memberKey, prefixRangeEnd, reservedPrefix } from "./lock-keys.js";

/** How a put-if-absent on the whole lock prefix ended. */
export type TakeResult = { readonly taken: true; readonly revision: bigint } | { readonly taken: false; readonly holder: IKeyValue | undefined };

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
  /** One options object for every call: its deadline getter is read afresh by each attempt. */
  readonly #callOptions: { readonly deadline: number };

  constructor(client: Etcd3, prefix: string, requestTimeoutMs: number) {
    this.#client = client;
    this.#prefix = prefix;
    this.#callOptions = perAttemptDeadline(requestTimeoutMs);
  }

  /** The member key `leaseId` uses for `key` in `suffix`. */
  memberKey(key: string, leaseId: string, suffix = 0): Buffer {
    return memberKey(lockPrefix(this.#prefix, key), leaseId, suffix);
  }

  /** One attempt that never queues: puts my member key only if nobody (no holder, no waiter) is under the lock prefix. */
  async take(key: string, member: Buffer, value: Buffer, leaseId: string): Promise<TakeResult> {
    const prefix = lockPrefix(this.#prefix, key);
    const response = await this.#txn({
      compare: [{ key: prefix, range_end: prefixRangeEnd(prefix), target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: member, value, lease: leaseId } }],
      failure: [{ request_range: this.#firstCreated(prefix) }],
    });
    if (response.succeeded) return { taken: true, revision: BigInt(response.header.revision) };
    return { taken: false, holder: response.responses[0]?.response_range.kvs[0] };
  }

  /** Go's `Mutex.tryAcquire`: puts my member key unless it exists, and returns my create revision and the current holder. */
  async enqueue(key: string, member: Buffer, value: Buffer, leaseId: string): Promise<{ revision: bigint; holder: IKeyValue | undefined }> {
    const prefix = lockPrefix(this.#prefix, key);
    const response = await this.#txn({
      compare: [{ key: member, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: member, value, lease: leaseId } }, { request_range: this.#firstCreated(prefix) }],
      failure: [{ request_range: { key: member } }, { request_range: this.#firstCreated(prefix) }],
    });
    const holder = response.responses[1]?.response_range.kvs[0];
    const existing = response.succeeded ? undefined : response.responses[0]?.response_range.kvs[0];
    return { revision: BigInt(existing?.create_revision ?? response.header.revision), holder };
  }

  /** Go's `waitDeletes` step: the key created last before `revision`, read together with my own key. */
  async position(key: string, member: Buffer, revision: bigint): Promise<QueuePosition> {
    const prefix = lockPrefix(this.#prefix, key);
    const response = await this.#txn({
      success: [
        {
          request_range: {
            key: prefix,
            range_end: prefixRangeEnd(prefix),
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
    const response = await this.#client.kv.range(this.#firstCreated(lockPrefix(this.#prefix, key)), this.#callOptions);
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
    const put = leaseId === undefined ? { key: member, value, ignore_lease: true } : { key: member, value, lease: leaseId };
    return this.#ifUnchanged(member, modRevision, { request_put: put });
  }

  /** Deletes the key if it was not modified since `modRevision`; otherwise returns the key as it is now. */
  async deleteIfUnchanged(member: Buffer, modRevision: string): Promise<{ done: true; revision: string } | { done: false; current: IKeyValue | undefined }> {
    return this.#ifUnchanged(member, modRevision, { request_delete_range: { key: member } });
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

  async #ifUnchanged(member: Buffer, modRevision: string, op: IRequestOp) {
    const response = await this.#txn({
      compare: [{ key: member, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: modRevision }],
      success: [op],
      failure: [{ request_range: { key: member } }],
    });
    if (response.succeeded) return { done: true as const, revision: response.header.revision };
    return { done: false as const, current: response.responses[0]?.response_range.kvs[0] };
  }

  #firstCreated(prefix: Buffer): IRangeRequest {
    return { key: prefix, range_end: prefixRangeEnd(prefix), sort_target: SortTarget.Create, sort_order: SortOrder.Ascend, limit: 1 };
  }

  #txn(request: Parameters<Etcd3["kv"]["txn"]>[0]): Promise<ITxnResponse> {
    return this.#client.kv.txn(request, this.#callOptions);
  }
}
