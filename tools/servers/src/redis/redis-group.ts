import { TestServerError } from "../errors/test-server-error.js";
import { settleAll } from "../process/settle.js";
import { type RedisServer, type RedisServerOptions, startRedis } from "./redis-server.js";

/** Independent redis masters, as Redlock uses them. */
export class RedisGroup implements AsyncDisposable {
  readonly servers: readonly RedisServer[];
  /** `redlock://127.0.0.1:<p1>,127.0.0.1:<p2>,...` */
  readonly url: string;

  constructor(servers: readonly RedisServer[]) {
    this.servers = Object.freeze([...servers]);
    this.url = `redlock://${servers.map((server) => `${server.host}:${server.port}`).join(",")}`;
  }

  /** Stops every server and removes their data dirs. */
  close(): Promise<void> {
    return settleAll(this.servers.map((server) => server.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Starts `count` independent redis-servers in parallel. */
export async function startRedisGroup(count: number, options: RedisServerOptions = {}): Promise<RedisGroup> {
  if (!Number.isInteger(count) || count < 1) {
    throw new TestServerError(`startRedisGroup(count) needs a positive integer count; got ${count}.`);
  }
  const results = await Promise.allSettled(Array.from({ length: count }, () => startRedis(options)));
  const servers = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failure === undefined) return new RedisGroup(servers);
  await settleAll(servers.map((server) => server.close())).catch(() => undefined);
  throw failure.reason;
}
