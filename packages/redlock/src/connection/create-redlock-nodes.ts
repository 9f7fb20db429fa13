import type { LockUrl } from "@distlock/core/driver";
import { createLockConnections, type LockConnections } from "@distlock/redis/internal";
import type { Redis } from "ioredis";
import type { ResolvedRedlockLockOptions } from "../options/redlock-lock-provider-options.js";
import { nodeName } from "./node-name.js";
import { RedlockNode } from "./redlock-node.js";

/** One node per host of the URL, each with its own connection, or one per client the caller owns (never quit). */
export function createRedlockNodes(options: ResolvedRedlockLockOptions): RedlockNode[] {
  if (options.clients !== undefined) return options.clients.map((client, i) => node(client, false, describeClient(client, i), options));
  const url = options.url;
  return url.hosts.map((host) => {
    const single: LockUrl = { ...url, scheme: "redis", backend: "redis", variant: undefined, hosts: [host], params: new URLSearchParams() };
    const { client, commands } = createLockConnections(single, options);
    return node(client as Redis, true, nodeName(host), options, commands);
  });
}

function node(client: Redis, ownsClient: boolean, name: string, settings: ResolvedRedlockLockOptions, commands?: LockConnections["commands"]): RedlockNode {
  return new RedlockNode({
    client,
    ownsClient,
    commands,
    name,
    subscribeTimeoutMs: settings.nodeTimeoutMs,
    connectTimeoutMs: settings.connectTimeoutMs,
    unsubscribeDelayMs: settings.unsubscribeDelayMs,
  });
}

function describeClient(client: Redis, index: number): string {
  const { host, port, path } = client.options ?? {};
  if (typeof path === "string" && path !== "") return path;
  return typeof host === "string" && typeof port === "number" ? `${host}:${port}` : `client #${index}`;
}
