import { encodeSegment, LOCK_NAME } from "./lock-paths.js";

/** The Curator recipe whose layout a provider's locks take: `InterProcessMutex` or `LeaderLatch`. */
export type ZooKeeperLockRecipe = "mutex" | "leader-latch";

/** Every `ZooKeeperLockRecipe`. */
export const ZOOKEEPER_LOCK_RECIPES: readonly ZooKeeperLockRecipe[] = Object.freeze(["mutex", "leader-latch"]);

/** Curator's `LeaderLatch` nodes are `_c_<uuid>-latch-<10-digit sequence>` (protected mode). */
export const LATCH_NAME = "latch-";

/** Where one driver's locks live and how their nodes are named and kept: the layout of one Curator recipe. */
export interface LockLayout {
  readonly recipe: ZooKeeperLockRecipe;
  /** The znode every lock path lives under: `<chroot>/locks` (mutex) or `<chroot>/latches` (leader latch). */
  readonly root: string;
  /** The recipe's name in its nodes, `_c_<uuid>-<lockName><sequence>`: Curator sorts a line by the text after it. */
  readonly lockName: string;
  /**
   * Whether a node is written after its create (a re-entry's count, a renewal's lease). Never on a leader latch: a
   * Curator `LeaderLatch` waiting behind a node watches it for its deletion only, and any other change to the node
   * spends that one-shot watch, so the latch would never learn that the node went.
   */
  readonly writesNodes: boolean;
}

/** The layout of `recipe` under `chroot`. */
export function lockLayout(chroot: string, recipe: ZooKeeperLockRecipe): LockLayout {
  return recipe === "mutex"
    ? Object.freeze({ recipe, root: `${chroot}/locks`, lockName: LOCK_NAME, writesNodes: true })
    : Object.freeze({ recipe, root: `${chroot}/latches`, lockName: LATCH_NAME, writesNodes: false });
}

/** The lock path of `key`: the key as one URI-encoded path segment under the layout's root. */
export function lockPath(layout: LockLayout, key: string): string {
  return `${layout.root}/${encodeSegment(key)}`;
}
