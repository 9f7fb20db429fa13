import type { DriverAcquireRequest } from "@distlock/core/driver";
import type { Etcd3 } from "etcd3";
import type { BackgroundTasks } from "../connection/background-tasks.js";
import type { HoldRecords } from "../holds/hold-records.js";
import { LeaseKeeper, type LeaseKeeperSettings } from "./lease-keeper.js";
import type { MemberLease } from "./member-lease.js";
import type { SessionLease } from "./session-lease.js";

/** Picks the lease of a new member key: the session lease for the session TTL (with this owner's suffix on it), else a lease of its own. */
export class MemberLeases {
  readonly #client: Etcd3;
  readonly #settings: LeaseKeeperSettings;
  readonly #session: SessionLease;
  readonly #holds: HoldRecords;
  readonly #background: BackgroundTasks;

  constructor(client: Etcd3, settings: LeaseKeeperSettings, session: SessionLease, holds: HoldRecords, background: BackgroundTasks) {
    this.#client = client;
    this.#settings = settings;
    this.#session = session;
    this.#holds = holds;
    this.#background = background;
  }

  async allocate(request: DriverAcquireRequest): Promise<MemberLease> {
    if (request.ttlMs !== this.#session.ttlMs) return this.#ownLease(request.ttlMs);
    return this.onSession(request, await this.#session.lease());
  }

  /** The member lease of a request for the session TTL, on `session` (the session lease, just proven): this owner's suffix claimed on it. */
  onSession(request: DriverAcquireRequest, session: LeaseKeeper): MemberLease {
    return { lease: session, session: true, claimed: true, suffix: this.#session.claim(request.key, request.ownerSecret) };
  }

  /** The lease of a key whose name does not come from its lease (a permit's): the session lease for the session TTL, else a lease of its own. */
  async unnamed(ttlMs: number): Promise<MemberLease> {
    if (ttlMs !== this.#session.ttlMs) return this.#ownLease(ttlMs);
    return { lease: await this.#session.lease(), session: true, claimed: false, suffix: 0 };
  }

  /** Gives back a member lease that did not become a hold: the session claim (unless a hold of this owner uses it), or the lease of its own. */
  free(memberLease: MemberLease, request: DriverAcquireRequest): void {
    if (!memberLease.session) this.#background.track(memberLease.lease.revoke());
    else if (memberLease.claimed && this.#holds.find(request.key, request.ownerSecret)?.sessionClaim !== true)
      this.#session.unclaim(request.key, request.ownerSecret);
  }

  async #ownLease(ttlMs: number): Promise<MemberLease> {
    return { lease: await LeaseKeeper.grant(this.#client, ttlMs, this.#settings), session: false, claimed: false, suffix: 0 };
  }
}
