import { InvalidConfigError } from "@distlock/core";
import type { LockUrl } from "@distlock/core/driver";
import { Cluster, type ClusterNode, Redis, type RedisOptions } from "ioredis";
import type { ResolvedRedisLockOptions } from "../options/redis-lock-provider-options.js";
import { RespConnection } from "./resp-connection.js";

const DEFAULT_PORT = 6379;
const DEFAULT_SENTINEL_PORT = 26379;
const MAX_RECONNECT_DELAY_MS = 500;

/** Connection-only URL parameters (the rest are provider settings). */
export const CONNECTION_PARAMS: readonly string[] = Object.freeze(["tls"]);

/**
 * An ioredis client for a `redis://`, `rediss://`, `redis+sentinel://` or `redis+cluster://` URL. It reconnects forever with a short capped backoff (a restarted
 * server is picked up without a new provider) and queues commands only briefly: `maxRetriesPerRequest` 1
 * and the driver's own per-call timeout make a dead server fail calls instead of hanging them.
 * No ioredis `commandTimeout`: the driver bounds every call itself, and a second timer per command would
 * cost time on every call and reject first, dropping the late grants the driver releases.
 */
export function createRedisConnection(url: LockUrl, settings: Pick<ResolvedRedisLockOptions, "connectTimeoutMs">, lazy = false): Redis | Cluster {
  const tls = usesTls(url);
  const common: RedisOptions = {
    username: url.username,
    password: url.password,
    connectTimeout: settings.connectTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    // A call in flight when the connection drops fails rather than being sent again on the next one: a script may
    // have run already (a second run would count a re-entry or a release twice), as the lean connection does.
    autoResendUnfulfilledCommands: false,
    lazyConnect: lazy,
  };
  if (url.variant === "cluster") {
    if (url.path !== "") throw new InvalidConfigError("url.path", "must be empty for redis+cluster: (a cluster has only database 0)");
    const nodes: ClusterNode[] = url.hosts.map(({ host, port }) => ({ host, port: port ?? DEFAULT_PORT }));
    return new Cluster(nodes, {
      redisOptions: { ...common, ...(tls ? { tls: {} } : {}) },
      enableOfflineQueue: true,
      clusterRetryStrategy: reconnectDelay,
      slotsRefreshTimeout: settings.connectTimeoutMs,
    });
  }
  if (url.variant === "sentinel") {
    if (url.path === "") throw new InvalidConfigError("url.path", "must name the master, e.g. redis+sentinel://h1:26379,h2:26379/mymaster");
    return new Redis({
      ...common,
      sentinels: url.hosts.map(({ host, port }) => ({ host, port: port ?? DEFAULT_SENTINEL_PORT })),
      name: url.path,
      retryStrategy: reconnectDelay,
      sentinelRetryStrategy: reconnectDelay,
      // Follows +switch-master from the Sentinels, so a failover moves the connection at once, not at the next error.
      failoverDetector: true,
      ...(tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    });
  }
  const { host, port, db } = standaloneServer(url);
  return new Redis({ ...common, host, port, db, retryStrategy: reconnectDelay, ...(tls ? { tls: { servername: host } } : {}) });
}

/** The connections a provider makes for a URL: its lock calls go on `commands` when there is one, pub/sub on `client`'s duplicates. */
export interface LockConnections {
  readonly client: Redis | Cluster;
  readonly commands: RespConnection | undefined;
}

/**
 * On one server, the lean connection for the lock calls and an ioredis client that connects only when pub/sub
 * duplicates it; for Sentinel and Cluster, ioredis alone.
 */
export function createLockConnections(url: LockUrl, settings: Pick<ResolvedRedisLockOptions, "connectTimeoutMs">): LockConnections {
  const commands = createRespConnection(url, settings);
  return { client: createRedisConnection(url, settings, commands !== undefined), commands };
}

/**
 * The hot path's lean connection to a `redis://` or `rediss://` URL (one server, no Sentinel or Cluster), with the
 * same reconnect backoff and connect timeout as `createRedisConnection`; undefined for the other variants.
 */
export function createRespConnection(url: LockUrl, settings: Pick<ResolvedRedisLockOptions, "connectTimeoutMs">): RespConnection | undefined {
  if (url.variant === "cluster" || url.variant === "sentinel") return undefined;
  const { host, port, db } = standaloneServer(url);
  return new RespConnection({
    host,
    port,
    db,
    ...(url.username === undefined ? {} : { username: url.username }),
    ...(url.password === undefined ? {} : { password: url.password }),
    ...(usesTls(url) ? { tls: { servername: host } } : {}),
    connectTimeoutMs: settings.connectTimeoutMs,
    reconnectDelayMs: reconnectDelay,
  });
}

function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS);
}

function usesTls(url: LockUrl): boolean {
  return url.variant === "tls" || parseTlsParam(url.params.get("tls"));
}

function standaloneServer(url: LockUrl): { host: string; port: number; db: number } {
  const [{ host, port } = { host: "127.0.0.1", port: undefined }] = url.hosts;
  return { host, port: port ?? DEFAULT_PORT, db: parseDatabase(url.path) };
}

function parseDatabase(path: string): number {
  if (path === "") return 0;
  if (!/^\d{1,5}$/.test(path)) throw new InvalidConfigError("url.path", `"${path}" is not a database number (redis://host:port/<db>)`);
  return Number(path);
}

function parseTlsParam(value: string | null): boolean {
  if (value === null || value === "false") return false;
  if (value === "true") return true;
  throw new InvalidConfigError("url.tls", 'must be "true" or "false"');
}
