import type { DriverLockProviderOptions, LockUrl } from "@distlock/core/driver";
import type { ZooKeeperLockRecipe } from "../recipe/lock-layout.js";

/**
 * Options of `ZooKeeperLockProvider`. Each setting but `hosts` and `chroot` can also be a query parameter of the URL:
 * `zookeeper://h1:2181,h2:2181/distlock?sessionTimeoutMs=10000` (or `zk://…`); the URL's host list gives `hosts` and its
 * path gives `chroot`.
 */
export interface ZooKeeperLockProviderOptions extends DriverLockProviderOptions {
  /** `zookeeper://h1:2181,h2:2181/<chroot>?…` or `zk://…`. The provider connects on first use, never in its constructor. */
  url?: string | LockUrl;
  /** The ensemble's servers as `host:port`. @default ["127.0.0.1:2181"] */
  hosts?: readonly string[];
  /**
   * The znode everything lives under: lock `k` is the Curator lock path `<chroot>/locks/<k>` (`k` URI-encoded as one
   * path segment). @default "/distlock"
   */
  chroot?: string;
  /**
   * The ZooKeeper session timeout asked of the server. A crashed holder's locks are freed when its session expires, so
   * this is also the shortest lease (`minTtlMs`): a hold can never be shorter than the time a crash takes to free it.
   * The server must grant exactly this or less (its `minSessionTimeout`/`maxSessionTimeout`), else connecting fails.
   * @default 10000
   */
  sessionTimeoutMs?: number;
  /** How long establishing a session may take (every server tried); then the call fails with BACKEND_UNAVAILABLE. @default 5000 */
  connectTimeoutMs?: number;
  /** Upper bound on every other server call; then it fails with BACKEND_UNAVAILABLE. @default 5000 */
  commandTimeoutMs?: number;
  /**
   * Whose layout the locks take. `"mutex"`: Curator's `InterProcessMutex` at `<chroot>/locks/<k>`. `"leader-latch"`:
   * Curator's `LeaderLatch` at `<chroot>/latches/<k>`, for `elect()` beside Java services that run a `LeaderLatch` on
   * that path; its nodes are never written after their create, so an explicit owner re-enters only through the provider
   * that holds the lock. @default "mutex"
   */
  recipe?: ZooKeeperLockRecipe;
}

/** The default of every option of `ZooKeeperLockProviderOptions` that has one. */
export const DEFAULT_ZOOKEEPER_LOCK_OPTIONS: Readonly<
  Required<Pick<ZooKeeperLockProviderOptions, "hosts" | "chroot" | "sessionTimeoutMs" | "connectTimeoutMs" | "commandTimeoutMs" | "recipe">>
> = Object.freeze({
  hosts: Object.freeze(["127.0.0.1:2181"]),
  chroot: "/distlock",
  sessionTimeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  commandTimeoutMs: 5_000,
  recipe: "mutex",
});

/** `ZooKeeperLockProviderOptions` after validation: every default applied, the URL's hosts and chroot taken. */
export type ResolvedZooKeeperLockOptions = typeof DEFAULT_ZOOKEEPER_LOCK_OPTIONS & Readonly<{ holderLabel: string | undefined }>;
