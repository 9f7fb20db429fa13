import type { LockUrl } from "@distlock/core/driver";

/** The server and login a `postgres://` or `mysql://` URL names, as both client libraries take them. */
export function urlServer(url: LockUrl, defaultPort: number) {
  const host = url.hosts[0];
  return { host: host?.host, port: host?.port ?? defaultPort, user: url.username, password: url.password, database: url.path || undefined };
}
