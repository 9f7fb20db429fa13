import type { DriverLockProviderOptions, LockUrl } from "@distlock/core/driver";

/** TLS towards the NATS servers; file paths are read by the client when it connects. */
export interface NatsTlsOptions {
  /** PEM file of the certificate authorities to trust instead of the system's. */
  readonly caFile?: string;
  /** PEM file of the client certificate, for servers that verify clients. */
  readonly certFile?: string;
  /** PEM file of the client certificate's key. */
  readonly keyFile?: string;
}

/**
 * Options of `NatsLockProvider`. Each setting can also be a query parameter of the URL:
 * `nats://127.0.0.1:4222/locks?replicas=3`. Credentials never appear in error messages.
 */
export interface NatsLockProviderOptions extends DriverLockProviderOptions {
  /** `nats://h1:4222,h2:4222/<bucket>`: the servers to try, user and password as user info, the bucket as the path. */
  url: string | LockUrl;
  /** The JetStream key-value bucket that holds the locks (the URL's path when not given). @default "distlock" */
  bucket?: string;
  /** Replicas of the bucket when the provider creates it; an existing bucket with fewer is refused. @default 1 */
  replicas?: number;
  /** Storage of the bucket when the provider creates it ("file" or "memory"); an existing bucket with another is refused. @default "file" */
  storage?: string;
  /** How long connecting may take. @default 5000 */
  connectTimeoutMs?: number;
  /** Upper bound on every JetStream call; then it fails with BACKEND_UNAVAILABLE. @default 5000 */
  commandTimeoutMs?: number;
  /** User name, instead of the URL's user info. */
  user?: string;
  /** Password, instead of the URL's user info. */
  pass?: string;
  /** Authentication token. */
  token?: string;
  /** Connect with TLS: `true` with the system's certificate authorities, or files; `?tls=true` in the URL. */
  tls?: boolean | NatsTlsOptions;
}

/** The default of every option of `NatsLockProviderOptions` that has one. */
export const DEFAULT_NATS_LOCK_OPTIONS: Readonly<
  Required<Pick<NatsLockProviderOptions, "bucket" | "replicas" | "storage" | "connectTimeoutMs" | "commandTimeoutMs">>
> = Object.freeze({
  bucket: "distlock",
  replicas: 1,
  storage: "file",
  connectTimeoutMs: 5_000,
  commandTimeoutMs: 5_000,
});

/** How the provider authenticates; never shown in a message. */
export type NatsCredentials =
  | { readonly kind: "none" }
  | { readonly kind: "user"; readonly user: string; readonly pass: string }
  | { readonly kind: "token"; readonly token: string };

/** `NatsLockProviderOptions` after validation: every default applied, the servers taken from the URL. */
export type ResolvedNatsLockOptions = typeof DEFAULT_NATS_LOCK_OPTIONS &
  Readonly<{
    servers: readonly string[];
    credentials: NatsCredentials;
    tls: NatsTlsOptions | undefined;
    holderLabel: string | undefined;
  }>;
