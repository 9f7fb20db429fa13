import type { ZooKeeperSession } from "../connection/zookeeper-session.js";

/** A node this driver's session created and holds a lock by, as this driver last wrote or read it. */
export interface HeldNode {
  readonly key: string;
  /** The whole znode path. */
  readonly path: string;
  readonly session: ZooKeeperSession;
  /** The owner as its node's record names it: the digest of its secret, or a fresh owner's token (`ownerOf`). */
  readonly owner: string;
  /** The owner secret, compared here instead of digesting a secret again. */
  readonly ownerSecret: string;
  readonly holder: string;
  /** The node's czxid. */
  readonly token: bigint;
  /** The node's data version as last written or read here. */
  version: number;
  count: number;
  /** `performance.now()` by which the lease ends unless renewed; the node is deleted then. */
  leaseEnd: number;
}
