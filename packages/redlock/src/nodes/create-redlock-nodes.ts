import { InvalidConfigError } from "@distlock/core";
import type { LockUrl } from "@distlock/core/driver";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import { createRedisConnection } from "@distlock/redis/internal";
import type { Redis } from "ioredis";
import type { RedlockLockSettings } from "../options/redlock-lock-provider-options.js";
import { RedlockNode } from "./redlock-node.js";

const DEFAULT_PORT = 6379;

/** One node per host of a `redlock://` URL, each with its own connection (same credentials and database on every host). */
export function createNodesFromUrl(url: LockUrl, settings: RedlockLockSettings): RedlockNode[] {
  if (url.backend !== "redlock")
    throw new InvalidConfigError("url.scheme", `"${url.scheme}:" is for the ${url.backend} backend; the redlock backend takes redlock://h1:p1,h2:p2,...`);
  const names = url.hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_PORT}`);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw new InvalidConfigError("url.host", `lists ${repeated} twice; every Redlock node must be a separate master`);
  const connection = { ...DEFAULT_REDIS_LOCK_OPTIONS, connectTimeoutMs: settings.connectTimeoutMs, commandTimeoutMs: settings.nodeTimeoutMs };
  return url.hosts.map((host, i) => {
    const single: LockUrl = { ...url, scheme: "redis", backend: "redis", variant: undefined, hosts: [host], params: new URLSearchParams() };
    return node(createRedisConnection(single, connection) as Redis, true, names[i] as string, settings);
  });
}

/** One node per client the caller owns; the clients are never quit. */
export function createNodesFromClients(clients: unknown, settings: RedlockLockSettings): RedlockNode[] {
  if (!Array.isArray(clients) || clients.length === 0)
    throw new InvalidConfigError("options.clients", "must be a non-empty array of ioredis clients, one per master");
  clients.forEach((client, i) => {
    if (!isRedisClient(client)) throw new InvalidConfigError(`options.clients[${i}]`, "must be an ioredis Redis instance (not a Cluster)");
  });
  if (new Set(clients).size !== clients.length)
    throw new InvalidConfigError("options.clients", "lists one client twice; every Redlock node must be a separate master");
  return (clients as Redis[]).map((client, i) => node(client, false, describeClient(client, i), settings));
}

function node(client: Redis, ownsClient: boolean, name: string, settings: RedlockLockSettings): RedlockNode {
  return new RedlockNode({
    client,
    ownsClient,
    name,
    subscribeTimeoutMs: settings.nodeTimeoutMs,
    connectTimeoutMs: settings.connectTimeoutMs,
    unsubscribeDelayMs: settings.unsubscribeDelayMs,
  });
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

function describeClient(client: Redis, index: number): string {
  const { host, port, path } = client.options ?? {};
  if (typeof path === "string" && path !== "") return path;
  return typeof host === "string" && typeof port === "number" ? `${host}:${port}` : `client #${index}`;
}
