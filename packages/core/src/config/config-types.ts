import type { LockProvider } from "../types.js";

/** A backend's name: a built-in one, or any name a backend registered. */
export type BackendName = "memory" | "sqlite" | "postgres" | "mysql" | "redis" | "redlock" | "etcd" | (string & {});

/** A distlock URL taken apart; multi-host schemes keep every host. */
export interface LockUrl {
  /** The scheme without ":", lower case, e.g. "redis+sentinel". */
  readonly scheme: string;
  /** The backend that owns the scheme. */
  readonly backend: BackendName;
  /** The kind of URL within a backend that the scheme's registration names, e.g. "sentinel" or "tls". */
  readonly variant: string | undefined;
  /** The host list in order; empty for an opaque scheme such as `sqlite:`. */
  readonly hosts: readonly { readonly host: string; readonly port: number | undefined }[];
  /** The user name, decoded. */
  readonly username: string | undefined;
  /** The password, decoded; never put it in a message (use `redacted`). */
  readonly password: string | undefined;
  /** Path after the host list (database name, file path, store name), decoded, without the leading "/" for server URLs. */
  readonly path: string;
  /** The query parameters, which `resolveBackendOptions` reads as settings. */
  readonly params: URLSearchParams;
  /** The URL with its password masked; safe for messages. */
  readonly redacted: string;
}

/** A config after validation: the backend resolved, the URL parsed, the rest handed to the backend. */
export interface ResolvedLockConfig {
  /** The backend's registered name. */
  readonly backend: string;
  /** The parsed URL, when the config gave one. */
  readonly url: LockUrl | undefined;
  /** Appended to "host:pid" in the public holder label. */
  readonly holderLabel: string | undefined;
  /** Backend-specific options, unvalidated here: the backend checks them (`resolveBackendOptions`). */
  readonly options: Readonly<Record<string, unknown>>;
}

/** Builds a backend's provider from a config that `createLockProvider` resolved (`BackendModule.createLockProviderFromConfig`). */
export type LockProviderFactory = BackendModule["createLockProviderFromConfig"];

/** How the URLs of one scheme read, for `registerLockBackend`'s `schemes`. */
export interface LockUrlScheme {
  /** The scheme without ":", e.g. "nats" or "redis+sentinel"; matched without regard to case. */
  readonly scheme: string;
  /** Tells a backend's kinds of URL apart (e.g. "tls", "cluster"); the parsed URL's `variant`. */
  readonly variant?: string;
  /**
   * `"one"` host, `"many"` (a comma-separated list, `h1:p1,h2:p2`), or `"none"`: an opaque URL such as
   * `sqlite:./locks.sqlite`, whose text after "scheme:" is all path. @default "many"
   */
  readonly hosts?: "one" | "many" | "none";
}

/**
 * What a backend package exports. Core imports it by specifier when a registration names a module (the built-in
 * backends) or when `DISTLOCK_BACKENDS` lists it (so do the CLI's `--backend-module` and the conformance suite's
 * `backendModule`); a module loaded from that list must also export `lockBackend`.
 */
export interface BackendModule {
  /** Builds the provider; errors about the config's options name `config.<option>`. */
  createLockProviderFromConfig(config: ResolvedLockConfig): LockProvider | Promise<LockProvider>;
  /**
   * Optional: the backend's own deployment checks, which `distlock doctor` and `checkLockBackend` (`@distlock/cli`) run
   * before their live self-test: what the store's settings say about lock safety (replicas, timeouts, eviction, ...).
   * Resolves with one row per check and rejects for nothing it finds (an unreachable server is a `fail` row).
   */
  checkDeployment?(config: ResolvedLockConfig): Promise<readonly DeploymentCheck[]>;
  /** The name and URL schemes to register the module under when it is loaded from `DISTLOCK_BACKENDS`. */
  lockBackend?: { readonly name: string; readonly schemes?: readonly (string | LockUrlScheme)[] };
}

/** One row of a backend's deployment checks (`BackendModule.checkDeployment`). Never carries a credential or an owner secret. */
export interface DeploymentCheck {
  /** Stable id, prefixed with the backend's name, e.g. "nats.replicas". */
  readonly check: string;
  /** `fail` can lose a lock, `warn` weakens a guarantee or hides a risk, `ok` is as it should be. */
  readonly status: "ok" | "warn" | "fail";
  /** What the check found: numbers and settings. */
  readonly found: string;
  /** What to change (for `warn` and `fail`). */
  readonly change?: string;
  /** The server or file the check looked at, when there are several or it helps. */
  readonly target?: string;
}
