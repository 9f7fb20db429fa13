import type { SessionPool } from "../connection/session-pool.js";
import type { HeldNodes } from "../leases/held-nodes.js";

/** What every lock operation of one driver shares. */
export interface LockContext {
  readonly chroot: string;
  readonly sessions: SessionPool;
  readonly held: HeldNodes;
}
