import { z } from "zod";
import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { MAX_OWNER_LENGTH } from "../options/defaults.js";
import { describeFirstIssue } from "../options/schema-error.js";
import type { BackendName, LockUrl, ResolvedLockConfig } from "./config-types.js";
import { parseLockUrl } from "./lock-url.js";

/** The embedded default when neither a config nor `DISTLOCK_URL` is given: a SQLite file in the working directory. */
export const DEFAULT_LOCK_URL = "sqlite:distlock.sqlite";

/** What `createLockProvider` accepts besides a bare URL; backend-specific options ride along and are checked by the backend. */
export interface LockProviderConfig {
  /** Backend name; implied by `url` when omitted. */
  backend?: BackendName;
  /** Where the backend lives, e.g. "redis://127.0.0.1:6379". */
  url?: string;
  /** Appended to "host:pid" in the public holder label. */
  holderLabel?: string;
  /** Anything else is a backend option. */
  [option: string]: unknown;
}

const configSchema = z.looseObject({
  backend: z.string({ error: "must be a string" }).min(1, "must not be empty").optional(),
  url: z.string({ error: "must be a string" }).optional(),
  holderLabel: z.string({ error: "must be a string" }).max(MAX_OWNER_LENGTH, `must be at most ${MAX_OWNER_LENGTH} characters`).optional(),
});

/** Validates a config or URL (falling back to `DISTLOCK_URL`, then the SQLite default). */
export function resolveLockConfig(config?: string | LockProviderConfig, env: NodeJS.ProcessEnv = process.env): ResolvedLockConfig {
  const given = config ?? env.DISTLOCK_URL ?? DEFAULT_LOCK_URL;
  if (typeof given === "string") {
    const url = parseLockUrl(given);
    return { backend: url.backend, url, holderLabel: undefined, options: {} };
  }
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new InvalidConfigError("config", "must be a URL string or an object with backend/url");
  const parsed = configSchema.safeParse(given);
  if (!parsed.success) {
    const { field, problem } = describeFirstIssue(parsed.error, "config");
    throw new InvalidConfigError(field, problem);
  }
  const { backend, url, holderLabel, ...options } = parsed.data;
  const lockUrl = url === undefined ? undefined : parseLockUrl(url);
  if (backend === undefined && lockUrl === undefined) throw new InvalidConfigError("config.backend", "give a backend name or a url");
  if (backend !== undefined && lockUrl !== undefined && lockUrl.backend !== backend) {
    throw new InvalidConfigError("config.backend", `"${backend}" does not match the ${lockUrl.scheme}: url, which is for ${lockUrl.backend}`);
  }
  return { backend: backend ?? (lockUrl as LockUrl).backend, url: lockUrl, holderLabel, options };
}
