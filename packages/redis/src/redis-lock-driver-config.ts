import type { Cluster, Redis } from "ioredis";
import type { RespConnection } from "./connection/resp-connection.js";
import type { ResolvedRedisLockOptions } from "./options/redis-lock-provider-options.js";

/** What a `RedisLockDriver` runs on. */
export interface RedisLockDriverConfig {
  /** Pub/sub comes from its duplicates; it also carries the lock calls unless `commands` does. */
  readonly client: Redis | Cluster;
  /** A lean connection the driver made for the lock calls (it then owns it, as it owns `client`). */
  readonly commands?: RespConnection | undefined;
  /** True when the driver created `client` and must close it. */
  readonly ownsClient: boolean;
  readonly settings: ResolvedRedisLockOptions;
  /** Where the client points, credentials masked, for messages. */
  readonly target: string;
}
