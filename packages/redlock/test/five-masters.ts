import { type RedisServer, startRedisGroup } from "@distlock/test-servers";
import { afterAll, afterEach } from "vitest";
import { RedlockLockProvider } from "../src/redlock-lock-provider.js";

/** What a test file gets from `fiveMasters`. */
export interface FiveMasters {
  readonly servers: readonly RedisServer[];
  /** A provider on the five (node timeout 200 ms, connect timeout 500 ms), closed after the test that made it. */
  readonly provider: () => RedlockLockProvider;
}

/** Five independent masters for one test file, closed after it; after each test every one is started again (a test may kill some). */
export async function fiveMasters(): Promise<FiveMasters> {
  const group = await startRedisGroup(5);
  afterAll(() => group.close());
  const servers = group.servers as RedisServer[];
  const providers: RedlockLockProvider[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.start()));
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });
  const provider = () => {
    const created = new RedlockLockProvider({ url: group.url, nodeTimeoutMs: 200, connectTimeoutMs: 500 });
    providers.push(created);
    return created;
  };
  return { servers, provider };
}
