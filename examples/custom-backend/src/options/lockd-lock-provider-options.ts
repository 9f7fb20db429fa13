import type { DriverLockProviderOptions, LockUrl } from "@distlock/core/driver";

/** Options of `LockdLockProvider`. Each setting can also be a query parameter of the URL: `lockd://127.0.0.1:7070?commandTimeoutMs=2000`. */
export interface LockdLockProviderOptions extends DriverLockProviderOptions {
  /** `lockd://host:port` of the server. The provider connects on first use, never in its constructor. */
  url: string | LockUrl;
  /** Namespace of every key and semaphore name on the server, so that applications can share one lockd. @default "distlock:" */
  prefix?: string;
  /** How long opening the TCP connection may take. @default 5000 */
  connectTimeoutMs?: number;
  /** Upper bound on every server call, including connecting; then it fails with BACKEND_UNAVAILABLE. @default 5000 */
  commandTimeoutMs?: number;
}

/** The options that have a default. */
type LockdSettings = Required<Pick<LockdLockProviderOptions, "prefix" | "connectTimeoutMs" | "commandTimeoutMs">>;

/** The default of every option of `LockdLockProviderOptions` that has one. */
export const DEFAULT_LOCKD_LOCK_OPTIONS: Readonly<LockdSettings> = Object.freeze({
  prefix: "distlock:",
  connectTimeoutMs: 5_000,
  commandTimeoutMs: 5_000,
});

/** `LockdLockProviderOptions` after validation: every default applied, the server's address taken from the URL. */
export type ResolvedLockdLockOptions = typeof DEFAULT_LOCKD_LOCK_OPTIONS & Readonly<{ host: string; port: number; holderLabel: string | undefined }>;
