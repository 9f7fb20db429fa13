import type { DriverRenewal } from "@distlock/core/driver";
import type { Etcd3 } from "etcd3";
import type { BackgroundTasks } from "../connection/background-tasks.js";
import { encodeMemberValue } from "../keys/lock-keys.js";
import type { LockKeyspace } from "../keys/lock-keyspace.js";
import { keepAliveDistinct } from "../leases/keep-alive-distinct.js";
import { LeaseKeeper, type LeaseKeeperSettings } from "../leases/lease-keeper.js";
import { type HoldRecord, MAX_CAS_ATTEMPTS } from "./hold-record.js";
import type { HoldRecords } from "./hold-records.js";

/** What the renewer shares with the rest of the driver. */
export interface HoldRenewerContext {
  readonly client: Etcd3;
  readonly settings: LeaseKeeperSettings;
  readonly keyspace: LockKeyspace;
  readonly holds: HoldRecords;
  readonly background: BackgroundTasks;
}

/**
 * Keeps known holds alive: core's watchdog renewals (one read of all member keys, one keepalive per
 * distinct lease), moving a key to a longer lease when asked for more.
 */
export class HoldRenewer {
  readonly #context: HoldRenewerContext;

  constructor(context: HoldRenewerContext) {
    this.#context = context;
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const { keyspace, holds } = this.#context;
    const records = renewals.map((renewal) => holds.find(renewal.key, renewal.ownerSecret));
    const present = records.filter((record): record is HoldRecord => record !== undefined);
    const current = await keyspace.getMany(present.map((record) => record.member));
    const live = new Set(present.filter((record, i) => holds.refresh(record, current[i]) || holds.forget(record)));
    const alive = await keepAliveDistinct([...live].map((record) => record.lease));
    return Promise.all(
      renewals.map(async (renewal, i) => {
        const record = records[i];
        if (record === undefined || !live.has(record)) return false;
        if (!alive.has(record.lease)) return holds.forget(record);
        if (record.lease.ttlMs < renewal.ttlMs) return this.#moveToNewLease(record, renewal.ttlMs);
        holds.extendSweep(record, renewal.ttlMs);
        return true;
      }),
    );
  }

  async #moveToNewLease(record: HoldRecord, ttlMs: number): Promise<boolean> {
    const { client, settings, keyspace, holds, background } = this.#context;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const lease = await LeaseKeeper.grant(client, ttlMs, settings);
      const outcome = await keyspace.putIfUnchanged(record.member, record.modRevision, encodeMemberValue(record.value), lease.id);
      if (outcome.done) {
        record.modRevision = outcome.revision;
        holds.switchLease(record, lease);
        return true;
      }
      background.track(lease.revoke());
      if (!holds.refresh(record, outcome.current)) return holds.forget(record);
    }
    return false;
  }
}
