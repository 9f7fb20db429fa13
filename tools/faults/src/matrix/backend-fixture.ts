import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ManagedServer,
  type RedisSentinelSet,
  type RedisServer,
  startDynalite,
  startEtcdCluster,
  startMariadb,
  startNats,
  startNatsCluster,
  startPostgres,
  startRedis,
  startRedisCluster,
  startRedisGroup,
  startRedisSentinelSet,
  startZooKeeper,
  startZooKeeperEnsemble,
} from "@distlock/test-servers";
import type { FenceKind } from "../fence/fenced-resource.js";
import type { FaultName } from "./fault-name.js";
import type { Primitive } from "./primitive.js";

/** Backends of the matrix. */
export const BACKEND_NAMES = [
  "sqlite",
  "postgres",
  "mysql",
  "postgres-session",
  "mysql-session",
  "redis",
  "redis-cluster",
  "redis-sentinel",
  "redis-sentinel-wait1",
  "redlock",
  "redlock-majority",
  "etcd",
  "nats",
  "nats-cluster",
  "zookeeper",
  "zookeeper-ensemble",
  "dynamodb",
] as const;

export type BackendName = (typeof BACKEND_NAMES)[number];

/** A backend under test: its servers on 127.0.0.1 and the URL workers use (its rows' faults: `faultsOf`). */
export interface BackendFixture extends AsyncDisposable {
  readonly backend: BackendName;
  readonly url: string;
  /** Lease length the workers ask for. */
  readonly ttlMs: number;
  /** The fenced resource its workers write to (see `FenceKind`). */
  readonly fence: FenceKind;
  /** What `server-restart` kills and starts again, together: the one server, or every master of a Redis Cluster. */
  readonly restartable?: readonly ManagedServer[];
  /** The independent masters of Redlock. */
  readonly nodes?: readonly RedisServer[];
  /** What `leader-loss` kills and starts again: the server that leads now (etcd's leader, the NATS bucket's stream leader, the ZooKeeper ensemble's leader). */
  readonly leader?: () => Promise<ManagedServer>;
  /** The master, replica and Sentinels behind a `redis+sentinel://` URL, and the replica acknowledgements workers wait for. */
  readonly sentinel?: { readonly servers: RedisSentinelSet; readonly waitForReplicas: number };
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
  /**
   * The module that registers the backend's URL scheme, for a backend core does not know by itself (`DISTLOCK_BACKENDS`:
   * this process's probe and its workers load it, as a user's processes would).
   */
  readonly backendModule?: string;
  /** An embedded database's file (SQLite): a process stopped inside a write there keeps its write lock (see `RowRun`). */
  readonly embeddedFile?: string;
  close(): Promise<void>;
}

const PROCESS_FAULTS: readonly FaultName[] = ["holder-sigkill", "holder-sigstop"];
const SERVER_FAULTS: readonly FaultName[] = [...PROCESS_FAULTS, "server-restart", "network-cut"];

/** The faults that apply to each backend (an embedded SQLite file has no server and no network). */
export const BACKEND_FAULTS: Readonly<Record<BackendName, readonly FaultName[]>> = Object.freeze({
  sqlite: PROCESS_FAULTS,
  postgres: SERVER_FAULTS,
  mysql: SERVER_FAULTS,
  "postgres-session": SERVER_FAULTS,
  "mysql-session": SERVER_FAULTS,
  redis: SERVER_FAULTS,
  // The cluster client connects to the addresses the nodes announce, not to a proxy in front of the seeds: no network-cut.
  "redis-cluster": [...PROCESS_FAULTS, "server-restart"],
  // Through Sentinel the driver is the single-server one (its rows are above); what Sentinel adds is the failover.
  "redis-sentinel": ["master-failover"],
  "redis-sentinel-wait1": ["master-failover"],
  redlock: [...PROCESS_FAULTS, "minority-loss", "majority-loss", "network-cut"],
  // Redlock deciding at a majority of fresh grants (awaitEveryVote: false): the same nodes, the same faults.
  "redlock-majority": [...PROCESS_FAULTS, "minority-loss", "majority-loss", "network-cut"],
  etcd: [...PROCESS_FAULTS, "leader-loss", "network-cut"],
  nats: SERVER_FAULTS,
  "nats-cluster": [...PROCESS_FAULTS, "leader-loss"],
  zookeeper: SERVER_FAULTS,
  "zookeeper-ensemble": [...PROCESS_FAULTS, "leader-loss"],
  dynamodb: SERVER_FAULTS,
});

/**
 * The backends whose counting semaphores the matrix runs, and the faults of their semaphore rows (on the backend's own
 * servers, TTL and URL). Only backends with `capabilities.semaphore`: a row on one without fails, its workers unable to
 * open the semaphore.
 */
export const SEMAPHORE_FAULTS: Readonly<Partial<Record<BackendName, readonly FaultName[]>>> = Object.freeze({
  redis: PROCESS_FAULTS,
  postgres: PROCESS_FAULTS,
  etcd: PROCESS_FAULTS,
});

/**
 * The backends whose multi-key locks (`provider.acquireAll`) the matrix runs, and the faults of those rows (on the
 * backend's own servers, TTL and URL): Redis on one server, etcd, PostgreSQL in table mode.
 */
export const MULTI_KEY_FAULTS: Readonly<Partial<Record<BackendName, readonly FaultName[]>>> = Object.freeze({
  redis: PROCESS_FAULTS,
  postgres: PROCESS_FAULTS,
  etcd: PROCESS_FAULTS,
});

const FAULTS_BY_PRIMITIVE: Readonly<Record<Primitive, Readonly<Partial<Record<BackendName, readonly FaultName[]>>>>> = Object.freeze({
  lock: BACKEND_FAULTS,
  semaphore: SEMAPHORE_FAULTS,
  "multi-key": MULTI_KEY_FAULTS,
});

/** The faults of a backend's rows of one primitive (none: the backend has no such rows). */
export function faultsOf(backend: BackendName, primitive: Primitive): readonly FaultName[] {
  return FAULTS_BY_PRIMITIVE[primitive][backend] ?? [];
}

/**
 * Sentinel tuned to fail over in about two seconds: a master unreachable for 1 s is down. Below that the Sentinels
 * sometimes took a just-promoted master for down too (before their first ping of it came back) and failed back at
 * once. The failover timeout stays above the time a fault re-routes the replica through a proxy, or Sentinel would
 * point it back at the master ("+fix-slave-config"); a failed election is retried after twice that.
 */
const SENTINEL_OPTIONS = { sentinels: 3, downAfterMs: 1_000, failoverTimeoutMs: 5_000 } as const;

/**
 * A master, a replica and three Sentinels. The TTL outlasts a failover, so a lease the failover lost is still valid
 * for its holder when the promoted replica grants the key again. Without `waitForReplicas` that can let two holders
 * overlap: the row then counts on fencing.
 */
async function startSentinelBackend(backend: "redis-sentinel" | "redis-sentinel-wait1", waitForReplicas: number): Promise<BackendFixture> {
  const servers = await startRedisSentinelSet(SENTINEL_OPTIONS);
  const params = waitForReplicas === 0 ? "" : `&waitForReplicas=${waitForReplicas}&waitForReplicasTimeoutMs=250`;
  return fixture({
    backend,
    url: `${servers.url}?commandTimeoutMs=500&connectTimeoutMs=500${params}`,
    ttlMs: 3_000,
    fence: "redis",
    sentinel: { servers, waitForReplicas },
    fencedOverlaps: waitForReplicas === 0,
    restartDownMs: 0,
    close: () => servers.close(),
  });
}

/** A started backend; its `backendModule`, if any, is listed in `DISTLOCK_BACKENDS` until it closes. */
function fixture(init: Omit<BackendFixture, typeof Symbol.asyncDispose>): BackendFixture {
  const forget = init.backendModule === undefined ? () => undefined : useBackendModule(init.backendModule);
  const close = async () => {
    forget();
    await init.close();
  };
  return { ...init, close, [Symbol.asyncDispose]: close };
}

/**
 * PostgreSQL or MariaDB, in table mode or (a `-session` backend) in session mode: advisory locks, `GET_LOCK`. Both
 * modes run on the same server and TTL, so their rows compare.
 */
function startSqlBackend(
  backend: "postgres" | "postgres-session" | "mysql" | "mysql-session",
  server: ManagedServer & { readonly url: string },
  fence: FenceKind,
) {
  const mode = backend.endsWith("-session") ? "&mode=session" : "";
  return fixture({
    backend,
    url: `${server.url}?queryTimeoutMs=1000&connectTimeoutMs=1000${mode}`,
    ttlMs: 1_000,
    fence,
    restartable: [server],
    restartDownMs: 300,
    close: () => server.close(),
  });
}

/**
 * Lets this process and the workers it starts reach the backend that `module` registers (`DISTLOCK_BACKENDS`), until the
 * returned function puts the variable back as it found it (unless it changed since). Test files share their worker's
 * process: a module left listed would follow every process a later file starts.
 */
function useBackendModule(module: string): () => void {
  const before = process.env.DISTLOCK_BACKENDS;
  const listed = (before ?? "").split(",").filter((each) => each !== "");
  if (listed.includes(module)) return () => undefined;
  const set = [...listed, module].join(",");
  process.env.DISTLOCK_BACKENDS = set;
  return () => {
    if (process.env.DISTLOCK_BACKENDS !== set) return;
    if (before === undefined) delete process.env.DISTLOCK_BACKENDS;
    else process.env.DISTLOCK_BACKENDS = before;
  };
}

/** Starts the servers of one backend. */
export async function startBackend(backend: BackendName): Promise<BackendFixture> {
  switch (backend) {
    case "sqlite": {
      const dir = mkdtempSync(join(tmpdir(), "distlock-faults-"));
      const file = join(dir, "locks.sqlite");
      const close = async () => rmSync(dir, { recursive: true, force: true });
      return fixture({
        backend,
        url: `sqlite:${file}?busyTimeoutMs=2000`,
        embeddedFile: file,
        ttlMs: 1_000,
        fence: "sqlite",
        restartDownMs: 0,
        close,
      });
    }
    case "postgres":
    case "postgres-session":
      return startSqlBackend(backend, await startPostgres(), "postgres");
    case "mysql":
    case "mysql-session":
      return startSqlBackend(backend, await startMariadb(), "mariadb");
    case "redis": {
      const server = await startRedis();
      const url = `${server.url}?commandTimeoutMs=500&connectTimeoutMs=500`;
      return fixture({
        backend,
        url,
        ttlMs: 1_000,
        fence: "redis",
        restartable: [server],
        restartDownMs: 1_500,
        close: () => server.close(),
      });
    }
    case "redis-cluster": {
      const cluster = await startRedisCluster({ masters: 3 });
      return fixture({
        backend,
        url: `${cluster.url}?commandTimeoutMs=500&connectTimeoutMs=500`,
        ttlMs: 1_000,
        fence: "redis",
        restartable: cluster.nodes,
        restartDownMs: 1_500,
        close: () => cluster.close(),
      });
    }
    case "redis-sentinel":
      return startSentinelBackend(backend, 0);
    case "redis-sentinel-wait1":
      return startSentinelBackend(backend, 1);
    case "redlock":
    case "redlock-majority": {
      const group = await startRedisGroup(5);
      return fixture({
        backend,
        url: `${group.url}?connectTimeoutMs=500${backend === "redlock-majority" ? "&awaitEveryVote=false" : ""}`,
        ttlMs: 1_500,
        fence: "redis",
        nodes: group.servers,
        restartDownMs: 2_000,
        close: () => group.close(),
      });
    }
    case "etcd": {
      const etcd = await startEtcdCluster(3);
      const url = `${etcd.url}?requestTimeoutMs=1000&dialTimeoutMs=1000&sessionTtlMs=2000`;
      const leader = () => etcd.leader();
      return fixture({ backend, url, ttlMs: 2_000, fence: "etcd", leader, restartDownMs: 1_000, close: () => etcd.close() });
    }
    case "nats": {
      const server = await startNats();
      const backendModule = "@distlock/nats";
      const url = `${server.url}/faults`;
      return fixture({ backend, url, backendModule, ttlMs: 1_000, fence: "redis", restartable: [server], restartDownMs: 300, close: () => server.close() });
    }
    case "nats-cluster": {
      const cluster = await startNatsCluster(3);
      const backendModule = "@distlock/nats";
      const url = `${cluster.url}/faults?replicas=3`;
      const leader = async () => {
        const found = await cluster.streamLeader("KV_faults");
        if (found === undefined) throw new Error("no server of the NATS cluster names a leader of the bucket's stream");
        return found;
      };
      return fixture({ backend, url, backendModule, ttlMs: 1_000, fence: "redis", leader, restartDownMs: 1_000, close: () => cluster.close() });
    }
    case "zookeeper": {
      const server = await startZooKeeper();
      const backendModule = "@distlock/zookeeper";
      // The session timeout is the backend's shortest lease (its README): the holds' TTL.
      const url = `${server.url}/faults?sessionTimeoutMs=2000`;
      return fixture({ backend, url, backendModule, ttlMs: 2_000, fence: "redis", restartable: [server], restartDownMs: 300, close: () => server.close() });
    }
    case "zookeeper-ensemble": {
      const ensemble = await startZooKeeperEnsemble(3);
      const backendModule = "@distlock/zookeeper";
      const url = `${ensemble.url}/faults?sessionTimeoutMs=2000`;
      const leader = () => ensemble.leader();
      return fixture({ backend, url, backendModule, ttlMs: 2_000, fence: "redis", leader, restartDownMs: 1_000, close: () => ensemble.close() });
    }
    case "dynamodb": {
      // Its tables in LevelDB, so that a restart keeps them, as DynamoDB's are kept.
      const server = await startDynalite({ persistent: true });
      const backendModule = "@distlock/dynamodb";
      const { createDynamoDbLockTable } = (await import("@distlock/dynamodb")) as typeof import("@distlock/dynamodb");
      // dynalite checks no credentials, but the SDK's chain must find some.
      process.env.AWS_ACCESS_KEY_ID ??= "distlock-faults";
      process.env.AWS_SECRET_ACCESS_KEY ??= "distlock-faults";
      const url = server.url("distlock-faults");
      await createDynamoDbLockTable({ url });
      return fixture({ backend, url, backendModule, ttlMs: 1_000, fence: "redis", restartable: [server], restartDownMs: 300, close: () => server.close() });
    }
  }
}
