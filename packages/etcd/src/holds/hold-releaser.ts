import { BackendUnavailableError } from "@distlock/core";
import { encodeMemberValue } from "../keys/lock-keys.js";
import type { LockKeyspace, MemberWrite } from "../keys/lock-keyspace.js";
import { type HoldRecord, MAX_CAS_ATTEMPTS } from "./hold-record.js";
import type { HoldRecords } from "./hold-records.js";

/** What one release did to one key. */
export interface ReleaseOutcome {
  readonly held: boolean;
  readonly holdCount: number;
}

const NOT_HELD: ReleaseOutcome = Object.freeze({ held: false, holdCount: 0 });
const RELEASED: ReleaseOutcome = Object.freeze({ held: true, holdCount: 0 });

/**
 * A fresh owner's hold at count 1, not being swept: its member key is released by a plain delete (a DeleteRange costs
 * etcd markedly less than a txn), since only this driver writes it and it keeps the key's name until the answer.
 */
function isLoneFreshHold(record: HoldRecord): boolean {
  return record.fresh && record.value.count === 1 && !record.sweeping;
}

/** The member key of `record` one level down: deleted at count 1, otherwise written with count − 1; compared on its mod revision. */
function releaseWrite(record: HoldRecord): MemberWrite {
  const remaining = record.value.count - 1;
  const value = remaining > 0 ? encodeMemberValue({ ...record.value, count: remaining }) : undefined;
  return { key: record.key, member: record.member, value, modRevision: record.modRevision };
}

/**
 * Drops one level of one owner's holds of several keys in one txn (a fresh owner's lone hold: one plain delete). A key
 * whose member key changed meanwhile (a co-owner re-entered elsewhere) is read back and the txn tried again; a key no
 * longer this owner's is not held.
 */
export class HoldReleaser {
  readonly #keyspace: LockKeyspace;
  readonly #holds: HoldRecords;

  constructor(keyspace: LockKeyspace, holds: HoldRecords) {
    this.#keyspace = keyspace;
    this.#holds = holds;
  }

  /** One outcome per key, in order. */
  async releaseAll(keys: readonly string[], ownerSecret: string): Promise<ReleaseOutcome[]> {
    const outcomes = keys.map(() => NOT_HELD);
    let pending = keys.flatMap((key, index) => {
      const record = this.#holds.find(key, ownerSecret);
      return record === undefined ? [] : [{ index, record }];
    });
    const lone = pending.length === 1 ? pending[0] : undefined;
    if (lone !== undefined && isLoneFreshHold(lone.record)) {
      outcomes[lone.index] = (await this.#holds.deleteFresh(lone.record)) ? RELEASED : NOT_HELD;
      return outcomes;
    }
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      if (pending.length === 0) return outcomes;
      const outcome = await this.#keyspace.writeAll(pending.map(({ record }) => releaseWrite(record)));
      if (outcome.done) {
        for (const { index, record } of pending) outcomes[index] = this.#released(record, String(outcome.revision));
        return outcomes;
      }
      pending = pending.filter(({ record }, i) => this.#holds.refresh(record, outcome.current[i]) || this.#holds.forget(record));
    }
    if (pending.length === 0) return outcomes;
    throw new BackendUnavailableError("etcd", `the keys of "${pending.map(({ record }) => record.key).join('", "')}" kept changing during release; try again`);
  }

  /** Records the release of one level of `record` that etcd wrote at `revision`; the last level forgets the hold. */
  #released(record: HoldRecord, revision: string): ReleaseOutcome {
    const holdCount = record.value.count - 1;
    if (holdCount === 0) this.#holds.forget(record);
    record.modRevision = revision;
    record.value = { ...record.value, count: holdCount };
    return { held: true, holdCount };
  }
}
