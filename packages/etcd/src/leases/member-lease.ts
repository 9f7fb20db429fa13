import type { LeaseKeeper } from "./lease-keeper.js";

/** The lease a new member key goes on, and the suffix that keeps the key apart from other owners' keys on that lease. */
export interface MemberLease {
  readonly lease: LeaseKeeper;
  readonly session: boolean;
  /** The key is named after this owner's claimed suffix on the session lease, given back with the hold. */
  readonly claimed: boolean;
  /** 0, or n > 0 for the member key `<leaseHex>-<n>` (see `memberKey`). */
  readonly suffix: number;
}
