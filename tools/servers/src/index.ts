export { ensureServerBinaries, type ServerBinaries } from "./binaries/ensure-server-binaries.js";
export { findBinary } from "./binaries/find-binary.js";
export { SERVER_KINDS, type ServerKind } from "./binaries/server-kind.js";
export { DEFAULT_DYNALITE_OPTIONS, type DynaliteOptions, DynaliteServer, startDynalite } from "./dynalite/dynalite-server.js";
export { MissingBinaryError } from "./errors/missing-binary-error.js";
export { ServerStartError } from "./errors/server-start-error.js";
export { TestServerError } from "./errors/test-server-error.js";
export type { EtcdClientTls } from "./etcd/etcd-certificates.js";
export { EtcdCluster, startEtcdCluster } from "./etcd/etcd-cluster.js";
export { DEFAULT_ETCD_OPTIONS, type EtcdOptions } from "./etcd/etcd-options.js";
export { type EtcdMemberStatus, EtcdServer, startEtcd } from "./etcd/etcd-server.js";
export { BindfsMount, mountBindfs } from "./fuse/bindfs-mount.js";
export {
  DEFAULT_MARIADB_SERVER_OPTIONS,
  MARIADB_USER,
  MariadbServer,
  type MariadbServerOptions,
  startMariadb,
} from "./mariadb/mariadb-server.js";
export { NatsCluster, startNatsCluster } from "./nats/nats-cluster.js";
export { DEFAULT_NATS_OPTIONS, type NatsOptions } from "./nats/nats-options.js";
export { type NatsClientTlsFiles, NatsServer, startNats } from "./nats/nats-server.js";
export { startTcpProxy, TcpProxy } from "./net/tcp-proxy.js";
export {
  DEFAULT_PGBOUNCER_OPTIONS,
  type PgbouncerOptions,
  type PgbouncerPoolMode,
  PgbouncerServer,
  startPgbouncer,
} from "./pgbouncer/pgbouncer-server.js";
export {
  DEFAULT_POSTGRES_SERVER_OPTIONS,
  POSTGRES_SUPERUSER,
  PostgresServer,
  type PostgresServerOptions,
  startPostgres,
} from "./postgres/postgres-server.js";
export { ManagedServer, type ManagedServerConfig } from "./process/managed-server.js";
export type { ServerProcess } from "./process/server-process.js";
export { pollFor } from "./process/settle.js";
export { sweepStaleTempDirs } from "./process/temp-dir.js";
export { dynamodbCall } from "./protocol/dynamodb-call.js";
export { fourLetterWord } from "./protocol/four-letter-word.js";
export { type HttpJsonOptions, httpJson } from "./protocol/http-json.js";
export { mariadbGreeting } from "./protocol/mariadb-greeting.js";
export { type PostgresQueryOptions, type PostgresRows, postgresQuery } from "./protocol/postgres-query.js";
export { type RedisReply, redisCommand } from "./protocol/redis-command.js";
export {
  DEFAULT_REDIS_CLUSTER_OPTIONS,
  RedisCluster,
  type RedisClusterOptions,
  startRedisCluster,
} from "./redis/redis-cluster.js";
export { RedisClusterNode } from "./redis/redis-cluster-node.js";
export { RedisGroup, startRedisGroup } from "./redis/redis-group.js";
export {
  DEFAULT_REDIS_SENTINEL_SET_OPTIONS,
  RedisSentinelSet,
  type RedisSentinelSetOptions,
  SENTINEL_MASTER_NAME,
  type SentinelRoles,
  startRedisSentinelSet,
} from "./redis/redis-sentinel-set.js";
export {
  DEFAULT_REDIS_SERVER_OPTIONS,
  RedisServer,
  type RedisServerOptions,
  startRedis,
} from "./redis/redis-server.js";
export { startZooKeeperEnsemble, ZooKeeperEnsemble } from "./zookeeper/zookeeper-ensemble.js";
export { DEFAULT_ZOOKEEPER_OPTIONS, type ZooKeeperOptions } from "./zookeeper/zookeeper-options.js";
export { startZooKeeper, type ZooKeeperPeer, ZooKeeperServer, type ZooKeeperServerConfig } from "./zookeeper/zookeeper-server.js";
