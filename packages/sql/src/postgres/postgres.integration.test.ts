import { describe, expect, it } from "vitest";
import { postgresWithPool } from "../../test/postgres-with-pool.js";
import { describeKeySets } from "../../test/key-set-tests.js";
import { describeSqlSemaphore } from "../../test/semaphore-tests.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const { server, pool } = await postgresWithPool();

describeSqlSemaphore("postgres", server.url);
describeKeySets("postgres", server.url);

describe("postgres: semaphore notifications", () => {
  it("a release that frees permits notifies the first waiter in line by a hash of its secret on the table's channel, and a release nobody waits for sends nothing", async () => {
    const listening = await pool.connect();
    const payloads: string[] = [];
    listening.on("notification", (message) => payloads.push(message.payload ?? ""));
    await listening.query('LISTEN "distlock_distlock_locks"');
    // Without LISTEN of their own, the waiters poll; the notifications are the releases' doing.
    const [holding, waiting] = [new SqlLockProvider({ url: server.url, listen: false }), new SqlLockProvider({ url: server.url, listen: false })];
    try {
      const name = `notify-${crypto.randomUUID()}`;
      const forName = () => payloads.filter((payload) => payload.endsWith(`:${name}`));
      const holder = await holding.semaphore(name, { permits: 1 }).acquire({ ttlMs: 30_000 });
      const waiter = waiting.semaphore(name, { permits: 1 }).acquire({ ttlMs: 30_000 });
      await expect.poll(async () => (await holding.semaphore(name, { permits: 1 }).inspect())?.waiters, { timeout: 5_000 }).toBe(1);
      await holder.release();
      await expect.poll(forName, { timeout: 5_000 }).toEqual([expect.stringMatching(/^[0-9a-f]{64}:/)]);
      await (await waiter).release();
      // Notifications arrive in commit order: once a later one is here, none is still coming for the release above.
      const marker = `marker-${crypto.randomUUID()}`;
      await holding.acquire(marker, { ttlMs: 30_000 });
      await holding.forceRelease(marker);
      await expect.poll(() => payloads.includes(`:${marker}`), { timeout: 5_000 }).toBe(true);
      expect(forName()).toHaveLength(1);
    } finally {
      await Promise.all([holding.close(), waiting.close()]);
      listening.release();
    }
  });
});
