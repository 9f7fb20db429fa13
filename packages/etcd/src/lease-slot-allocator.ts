import type { DriverAcquireRequest } from "@distlock/core/driver";
import type { Etcd3 } from "etcd3";
import type { BackgroundTasks } from "./background-tasks.js";
import type { HoldRegistry } from "./hold-registry.js";
import { LeaseKeeper, type LeaseKeeperSettings } from "./lease-keeper.js";
import type { SessionLease } from "./session-lease.js";

/** The lease a new member key goes on, and the key's slot on it. */
export interface LeaseSlot {
  readonly lease: LeaseKeeper;
  readonly session: boolean;
  readonly slot: number;
}

/** Picks the lease of a new member key: the session lease for the session TTL (with this owner's slot on it), else a lease of its own. */
export class LeaseSlotAllocator {
  readonly #client: Etcd3;
  readonly #settings: LeaseKeeperSettings;
  readonly #session: SessionLease;
  readonly #holds: HoldRegistry;
  readonly #background: BackgroundTasks;

  constructor(client: Etcd3, settings: LeaseKeeperSettings, session: SessionLease, holds: HoldRegistry, background: BackgroundTasks) {
    this.#client = client;
    this.#settings = settings;
    this.#session = session;
    this.#holds = holds;
    this.#background = background;
  }

  async allocate(request: DriverAcquireRequest): Promise<LeaseSlot> {
    if (request.ttlMs !== this.#session.ttlMs) return { lease: await LeaseKeeper.grant(this.#client, request.ttlMs, this.#settings), session: false, slot: 0 };
    const slot = this.#session.claim(request.key, request.ownerSecret);
    try {
      return { lease: await this.#session.lease(), session: true, slot };
    } catch (error) {
      this.#session.unclaim(request.key, request.ownerSecret);
      throw error;
    }
  }

  /** Gives back a slot that did not become a hold: the session claim (unless a hold of this owner uses it), or the lease of its own. */
  free(slot: LeaseSlot, request: DriverAcquireRequest): void {
    if (slot.session) {
      if (this.#holds.find(request.key, request.ownerSecret)?.sessionClaim !== true) this.#session.unclaim(request.key, request.ownerSecret);
    } else {
      this.#background.track(slot.lease.revoke());
    }
  }
}
