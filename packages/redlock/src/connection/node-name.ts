import type { LockUrl } from "@distlock/core/driver";

type HostPort = LockUrl["hosts"][number];

const DEFAULT_PORT = 6379;

/** How a node of a `redlock://` URL is named in messages: `host:port`, an IPv6 host in brackets. */
export function nodeName({ host, port }: HostPort): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_PORT}`;
}
