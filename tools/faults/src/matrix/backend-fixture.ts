import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type EtcdCluster,
  type ManagedServer,
  type RedisServer,
  startEtcdCluster,
  startMariadb,
  startPostgres,
  startRedis,
  startRedisCluster,
  startRedisGroup,
} from "@distlock/test-servers";
import type { FaultName } from "./fault-name.js";

/** Backends of the matrix. */
export const BACKEND_NAMES = ["sqlite", "postgres", "mysql", "redis", "redis-cluster", "redlock", "etcd"] as const;

export type BackendName = (typeof BACKEND_NAMES)[number];

/** A backend under test: its servers on 127.0.0.1, the URL workers use, and the faults that apply to it. */
export interface BackendFixture extends AsyncDisposable {
  readonly backend: BackendName;
  readonly url: string;
  /** Lease length the workers ask for. */
  readonly ttlMs: number;
  readonly faults: readonly FaultName[];
  /** What `server-restart` kills and starts again, together: the one server, or every master of a Redis Cluster. */
  readonly restartable?: readonly ManagedServer[];
  /** The independent masters of Redlock. */
  readonly nodes?: readonly RedisServer[];
  readonly etcd?: EtcdCluster;
  /**
   * The backend does not rule out overlapping holds under its faults (asynchronous replication can lose a lease in a
   * failover) and leaves them to fencing: an overlap then counts apart, as long as fencing held in the row.
   */
  readonly fencedOverlaps?: boolean;
  /**
   * How long a restarted server stays down. Servers that lose their data on a crash (redis without
   * persistence) must stay down longer than any lease they granted: Redlock's "delayed restart".
   */
  readonly restartDownMs: number;
  close(): Promise<void>;
}

const PROCESS_FAULTS: readonly FaultName[] = ["holder-sigkill", "holder-sigstop"];
const SERVER_FAULTS: readonly FaultName[] = [...PROCESS_FAULTS, "server-restart", "network-cut"];

/** The faults that apply to each backend (an embedded SQLite file has no server and no network). */
export const BACKEND_FAULTS: Readonly<Record<BackendName, readonly FaultName[]>> = Object.freeze({
  sqlite: PROCESS_FAULTS,
  postgres: SERVER_FAULTS,
  mysql: SERVER_FAULTS,
  redis: SERVER_FAULTS,
  // The cluster client connects to the addresses the nodes announce, not to a proxy in front of the seeds: no network-cut.
  "redis-cluster": [...PROCESS_FAULTS, "server-restart"],
  redlock: [...PROCESS_FAULTS, "minority-loss", "majority-loss", "network-cut"],
  etcd: [...PROCESS_FAULTS, "leader-loss", "network-cut"],
});

function fixture(init: Omit<BackendFixture, typeof Symbol.asyncDispose>): BackendFixture {
  return { ...init, [Symbol.asyncDispose]: () => init.close() };
}

/** Starts the servers of one backend. */
export async function startBackend(backend: BackendName): Promise<BackendFixture> {
  switch (backend) {
    case "sqlite": {
      const dir = mkdtempSync(join(tmpdir(), "distlock-faults-"));
      const close = async () => rmSync(dir, { recursive: true, force: true });
      return fixture({
        backend,
        url: `sqlite:${join(dir, "locks.sqlite")}?busyTimeoutMs=2000`,
        ttlMs: 1_000,
        faults: BACKEND_FAULTS.sqlite,
        restartDownMs: 0,
        close,
      });
    }
    case "postgres": {
      const server = await startPostgres();
      const url = `${server.url}?queryTimeoutMs=1000&connectTimeoutMs=1000`;
      return fixture({ backend, url, ttlMs: 1_000, faults: BACKEND_FAULTS[backend], restartable: [server], restartDownMs: 300, close: () => server.close() });
    }
    case "mysql": {
      const server = await startMariadb();
      const url = `${server.url}?queryTimeoutMs=1000&connectTimeoutMs=1000`;
      return fixture({ backend, url, ttlMs: 1_000, faults: BACKEND_FAULTS[backend], restartable: [server], restartDownMs: 300, close: () => server.close() });
    }
    case "redis": {
      const server = await startRedis();
      const url = `${server.url}?commandTimeoutMs=500&connectTimeoutMs=500`;
      return fixture({ backend, url, ttlMs: 1_000, faults: BACKEND_FAULTS.redis, restartable: [server], restartDownMs: 1_500, close: () => server.close() });
    }
    case "redis-cluster": {
      const cluster = await startRedisCluster({ masters: 3 });
      return fixture({
        backend,
        url: `${cluster.url}?commandTimeoutMs=500&connectTimeoutMs=500`,
        ttlMs: 1_000,
        faults: BACKEND_FAULTS[backend],
        restartable: cluster.nodes,
        restartDownMs: 1_500,
        close: () => cluster.close(),
      });
    }
    case "redlock": {
      const group = await startRedisGroup(5);
      return fixture({
        backend,
        url: `${group.url}?connectTimeoutMs=500`,
        ttlMs: 1_500,
        faults: BACKEND_FAULTS.redlock,
        nodes: group.servers,
        restartDownMs: 2_000,
        close: () => group.close(),
      });
    }
    case "etcd": {
      const etcd = await startEtcdCluster(3);
      const url = `${etcd.url}?requestTimeoutMs=1000&dialTimeoutMs=1000&sessionTtlMs=2000`;
      return fixture({ backend, url, ttlMs: 2_000, faults: BACKEND_FAULTS.etcd, etcd, restartDownMs: 1_000, close: () => etcd.close() });
    }
  }
}
