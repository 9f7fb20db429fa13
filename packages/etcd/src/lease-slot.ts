import type { LeaseKeeper } from "./lease-keeper.js";

/** The lease a new member key goes on, and the key's slot on it. */
export interface LeaseSlot {
  readonly lease: LeaseKeeper;
  readonly session: boolean;
  /** The key is named after this owner's claimed slot on the session lease, given back with the hold. */
  readonly claimed: boolean;
  readonly slot: number;
}
