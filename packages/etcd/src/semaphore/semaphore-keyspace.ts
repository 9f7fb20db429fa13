import { CompareResult, CompareTarget, type Etcd3, type IRangeRequest, SortOrder, SortTarget } from "etcd3";
import type { CallOptions } from "../connection/call-options.js";
import { prefixRangeEnd } from "../keys/lock-keys.js";
import { type PermitLine, parseLine } from "./permit-line.js";

/** How an attempt to join a line ended: joined (the line now ends with the new key), or the line changed since it was read. */
export interface JoinOutcome {
  readonly joined: boolean;
  /** The line as it is now, read in the same txn. */
  readonly line: PermitLine;
}

/** A semaphore's line as etcd transactions: member keys under the line prefix, ordered by create revision. */
export class SemaphoreKeyspace {
  readonly #client: Etcd3;
  readonly #callOptions: CallOptions;

  constructor(client: Etcd3, callOptions: CallOptions) {
    this.#client = client;
    this.#callOptions = callOptions;
  }

  /** Every member key of the line, oldest first, at one revision. */
  async read(line: Buffer): Promise<PermitLine> {
    const response = await this.#client.kv.range(lineRange(line), this.#callOptions);
    return parseLine(response.kvs, response.header.revision);
  }

  /**
   * Puts `member` at the end of the line if no key joined it after `seen` was read (an empty line for `UNREAD_LINE`),
   * so whatever was decided on `seen` (the permit count, whether it fits) still holds when the key lands. One txn.
   */
  async join(line: Buffer, seen: PermitLine, member: Buffer, value: Buffer, leaseId: string): Promise<JoinOutcome> {
    const range = lineRange(line);
    const response = await this.#client.kv.txn(
      {
        compare: [
          { key: line, range_end: range.range_end, target: CompareTarget.Create, result: CompareResult.Less, create_revision: String(seen.revision + 1n) },
        ],
        success: [{ request_put: { key: member, value, lease: leaseId } }, { request_range: range }],
        failure: [{ request_range: range }],
      },
      this.#callOptions,
    );
    const kvs = response.responses[response.succeeded ? 1 : 0]?.response_range.kvs ?? [];
    return { joined: response.succeeded, line: parseLine(kvs, response.header.revision) };
  }

  /** Deletes `member` whatever its revision: only its owner ever names it. */
  async delete(member: Buffer): Promise<void> {
    await this.#client.kv.deleteRange({ key: member }, this.#callOptions);
  }
}

function lineRange(line: Buffer): IRangeRequest & { range_end: Buffer } {
  return { key: line, range_end: prefixRangeEnd(line), sort_target: SortTarget.Create, sort_order: SortOrder.Ascend };
}
