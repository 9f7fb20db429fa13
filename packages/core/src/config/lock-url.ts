import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { redactCredentials } from "../errors/redact-credentials.js";
import { registeredSchemes, urlScheme, urlSchemeOwner } from "./backend-registry.js";
import type { LockUrl, LockUrlScheme } from "./config-types.js";

const URL_SHAPE = /^([a-z][a-z0-9+.-]*):(?:\/\/(?:([^@/?#]*)@)?([^/?#]*))?([^?#]*)(?:\?([^#]*))?$/i;

/**
 * Parses a distlock URL by the registered scheme's rules (or by `unregistered`'s, for a backend's own schemes before it
 * is registered); throws `InvalidConfigError` naming the part that is wrong, never echoing a password. */
export function parseLockUrl(url: unknown, unregistered?: { readonly backend: string; readonly schemes: readonly (string | LockUrlScheme)[] }): LockUrl {
  if (typeof url !== "string" || url.trim() === "")
    throw new InvalidConfigError("url", "must be a non-empty string such as redis://127.0.0.1:6379 or sqlite:./locks.sqlite");
  const redacted = redactCredentials(url);
  const match = URL_SHAPE.exec(url.trim());
  if (match === null) throw new InvalidConfigError("url", `"${redacted}" is not a URL (expected scheme://host:port/path or sqlite:<file>)`);
  const [, rawScheme = "", userinfo, hostList, rawPath = "", query = ""] = match;
  const scheme = rawScheme.toLowerCase();
  const owner = urlSchemeOwner(scheme) ?? ownSchemeOf(unregistered, scheme);
  if (owner === undefined)
    throw new InvalidConfigError(
      "url.scheme",
      `"${scheme}:" is not supported; use one of ${registeredSchemes()
        .map((s) => `${s}:`)
        .join(", ")}, or register the backend that owns it (registerLockBackend, DISTLOCK_BACKENDS)`,
    );
  const opaque = owner.scheme.hosts === "none";
  const [username, password] = parseUserinfo(userinfo);
  const path = decode(opaque ? `${hostList ?? ""}${rawPath}` : rawPath.replace(/^\//, ""), "url.path");
  const hosts = opaque ? [] : parseHosts(hostList ?? "", owner.scheme.hosts === "many", scheme);
  return { scheme, backend: owner.backend, variant: owner.scheme.variant, hosts, username, password, path, params: new URLSearchParams(query), redacted };
}

/** The scheme among a backend's own, for a URL its provider reads before (or without) the backend being registered. */
function ownSchemeOf(
  unregistered: { readonly backend: string; readonly schemes: readonly (string | LockUrlScheme)[] } | undefined,
  scheme: string,
): { backend: string; scheme: LockUrlScheme } | undefined {
  if (unregistered === undefined) return undefined;
  const own = unregistered.schemes.map(urlScheme).find((candidate) => candidate.scheme === scheme);
  return own === undefined ? undefined : { backend: unregistered.backend, scheme: own };
}

function parseUserinfo(userinfo: string | undefined): [string | undefined, string | undefined] {
  if (userinfo === undefined || userinfo === "") return [undefined, undefined];
  const colon = userinfo.indexOf(":");
  const user = colon === -1 ? userinfo : userinfo.slice(0, colon);
  const password = colon === -1 ? undefined : userinfo.slice(colon + 1);
  return [decode(user, "url.username") || undefined, password === undefined ? undefined : decode(password, "url.password")];
}

function parseHosts(hostList: string, multiHost: boolean, scheme: string): LockUrl["hosts"][number][] {
  if (hostList === "") throw new InvalidConfigError("url.host", `${scheme}: needs a host, e.g. ${scheme}://127.0.0.1`);
  const parts = hostList.split(",");
  if (!multiHost && parts.length > 1) throw new InvalidConfigError("url.host", `${scheme}: takes one host; use a multi-host scheme for several`);
  return parts.map((part) => {
    const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(part);
    const colon = part.lastIndexOf(":");
    const host = bracketed ? bracketed[1] : colon === -1 ? part : part.slice(0, colon);
    const port = bracketed ? bracketed[2] : colon === -1 ? undefined : part.slice(colon + 1);
    if (host === undefined || host === "" || /[\s/]/.test(host)) throw new InvalidConfigError("url.host", `"${part}" is not a host or host:port`);
    return { host, port: port === undefined ? undefined : parsePort(port) };
  });
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535) throw new InvalidConfigError("url.port", `"${text}" is not a port number from 1 to 65535`);
  return port;
}

function decode(text: string, field: string): string {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    throw new InvalidConfigError(field, "has a malformed %-escape", { cause: error });
  }
}
