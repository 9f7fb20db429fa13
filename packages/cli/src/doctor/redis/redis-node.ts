import type { LockUrl } from "@distlock/core/driver";
import { Redis } from "ioredis";

/** Bounds connecting to a server and every call the checks make. */
export const REDIS_CALL_TIMEOUT_MS = 5_000;

const DEFAULT_PORT = 6379;

/** A server address from a URL host, `host:port` (an IPv6 host in brackets). */
export function redisAddress({ host, port }: LockUrl["hosts"][number]): { host: string; port: number; name: string } {
  const resolved = port ?? DEFAULT_PORT;
  return { host, port: resolved, name: `${host.includes(":") ? `[${host}]` : host}:${resolved}` };
}

/**
 * One connection to one server with the URL's credentials and TLS, never reconnecting: a check that cannot reach
 * the server says so instead of waiting. Rejects when the server does not answer within the timeout.
 */
export async function connectRedisNode(url: LockUrl, host: string, port: number, db = 0): Promise<Redis> {
  const tls = url.variant === "tls" || url.params.get("tls") === "true";
  const client = new Redis({
    host,
    port,
    db,
    username: url.username,
    password: url.password,
    connectTimeout: REDIS_CALL_TIMEOUT_MS,
    commandTimeout: REDIS_CALL_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    lazyConnect: true,
    ...(tls ? { tls: { servername: host } } : {}),
  });
  // ioredis rejects connect() with "Connection is closed."; the cause (ECONNREFUSED, WRONGPASS, ...) comes as an event.
  let cause: unknown;
  client.on("error", (error: unknown) => {
    cause ??= error;
  });
  try {
    await client.connect();
    return client;
  } catch (error) {
    client.disconnect();
    throw cause ?? error;
  }
}

/** INFO's text as field → value. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}
