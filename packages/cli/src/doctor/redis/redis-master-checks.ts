import type { LockUrl } from "@distlock/core/driver";
import { describeError } from "../doctor-errors.js";
import type { CheckList } from "../doctor-report.js";
import { connectRedisNode } from "./redis-node.js";
import { checkRedisPermissions } from "./redis-permission-checks.js";
import { checkRedisServer, type RedisServerCheckOptions } from "./redis-server-checks.js";
import { type RedisServerFacts, readServerFacts } from "./redis-server-facts.js";

/** Connects to one master and runs the server and permission checks on it; resolves with what it read, undefined when it could not be reached. */
export async function checkRedisMaster(
  url: LockUrl,
  address: { host: string; port: number; db?: number },
  name: string,
  prefix: string,
  checks: CheckList,
  options: RedisServerCheckOptions = {},
): Promise<RedisServerFacts | undefined> {
  const client = await connectRedisNode(url, address.host, address.port, address.db).catch((error: unknown) => {
    checks.add("redis.connect", "fail", `could not connect: ${describeError(error)}`, "check the host, port, credentials and TLS setting of the URL", name);
    return undefined;
  });
  if (client === undefined) return undefined;
  try {
    const facts = await readServerFacts(client, name);
    checkRedisServer(facts, checks, options);
    await checkRedisPermissions(client, prefix, name, checks, options.slots);
    return facts;
  } finally {
    client.disconnect();
  }
}
