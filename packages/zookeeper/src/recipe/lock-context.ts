import type { SessionPool } from "../connection/session-pool.js";
import type { HeldNodes } from "../leases/held-nodes.js";
import type { LockLayout } from "./lock-layout.js";

/** What every lock operation of one driver shares. */
export interface LockContext {
  /** The ensemble's connect string. */
  readonly ensemble: string;
  readonly layout: LockLayout;
  readonly sessions: SessionPool;
  readonly held: HeldNodes;
}
