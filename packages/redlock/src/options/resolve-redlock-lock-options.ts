import { InvalidConfigError } from "@distlock/core";
import { type BackendOptionsSpec, backendSettings, resolveBackendOptions } from "@distlock/core/driver";
import { keyPrefixSetting } from "@distlock/redis/internal";
import type { Redis } from "ioredis";
import { nodeName } from "../connection/node-name.js";
import { DEFAULT_REDLOCK_LOCK_OPTIONS, type RedlockLockProviderOptions, type ResolvedRedlockLockOptions } from "./redlock-lock-provider-options.js";

const REDLOCK_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_REDLOCK_LOCK_OPTIONS> = {
  backend: "redlock",
  urlBackends: ["redlock"],
  urlSchemes: "redlock://h1:p1,h2:p2,...",
  ownOptions: ["clients"],
  ownParams: ["tls"],
  settings: {
    prefix: keyPrefixSetting,
    connectTimeoutMs: backendSettings.duration(1),
    nodeTimeoutMs: backendSettings.duration(1),
    driftFactor: backendSettings.number(0, 0.5),
    driftFloorMs: backendSettings.duration(0),
    retryJitterMs: backendSettings.duration(1),
    fencing: backendSettings.boolean,
    awaitEveryVote: backendSettings.boolean,
    unsubscribeDelayMs: backendSettings.duration(0),
    renewBatchSize: backendSettings.integer(1, 100_000),
    waiterLeaseMs: backendSettings.duration(30),
    localPasses: backendSettings.integer(0, 1_000_000),
  },
  defaults: DEFAULT_REDLOCK_LOCK_OPTIONS,
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>`, `url.<param>`), and
 * applies the defaults; URL query parameters fill in what the options leave out.
 */
export function resolveRedlockLockOptions(options: RedlockLockProviderOptions, optionsField = "options"): ResolvedRedlockLockOptions {
  const { url, holderLabel, settings } = resolveBackendOptions(REDLOCK_LOCK_OPTIONS, options, optionsField);
  const { clients } = options;
  if (url !== undefined && clients !== undefined) throw new InvalidConfigError(`${optionsField}.clients`, "give either url or clients, not both");
  if (clients !== undefined) return Object.freeze({ ...settings, holderLabel, url: undefined, clients: checkClients(clients, `${optionsField}.clients`) });
  if (url === undefined) throw new InvalidConfigError(`${optionsField}.url`, "give a redlock://h1:p1,h2:p2,... URL or a list of ioredis clients");
  if (url.params.has("tls")) {
    throw new InvalidConfigError("url.tls", `is not supported by the redlock backend yet; pass TLS-enabled ioredis clients as ${optionsField}.clients`);
  }
  const names = url.hosts.map(nodeName);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw new InvalidConfigError("url.host", `lists ${repeated} twice; every Redlock node must be a separate master`);
  return Object.freeze({ ...settings, holderLabel, url, clients: undefined });
}

function checkClients(clients: unknown, field: string): readonly Redis[] {
  if (!Array.isArray(clients) || clients.length === 0) throw new InvalidConfigError(field, "must be a non-empty array of ioredis clients, one per master");
  clients.forEach((client, i) => {
    if (!isRedisClient(client)) throw new InvalidConfigError(`${field}[${i}]`, "must be an ioredis Redis instance (not a Cluster)");
  });
  if (new Set(clients).size !== clients.length) throw new InvalidConfigError(field, "lists one client twice; every Redlock node must be a separate master");
  return Object.freeze([...clients]);
}

function isRedisClient(value: unknown): value is Redis {
  const candidate = value as Partial<Record<"evalsha" | "duplicate" | "subscribe" | "isCluster", unknown>> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.isCluster !== true &&
    [candidate.evalsha, candidate.duplicate, candidate.subscribe].every((f) => typeof f === "function")
  );
}
