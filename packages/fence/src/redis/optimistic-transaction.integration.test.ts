import { randomUUID } from "node:crypto";
import { VersionConflictError } from "@distlock/core";
import { startRedis } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { optimisticTransaction } from "./optimistic-transaction.js";

const server = await startRedis();
const redis = new Redis(server.url);
const other = new Redis(server.url);
afterAll(async () => {
  await Promise.allSettled([redis.quit(), other.quit()]);
  await server.close();
});

/** Adds `amount` to the number at `key` by read, compute, commit; `meddle` runs between the read and the commit. */
function addOptimistically(key: string, amount: number, meddle: (call: number) => Promise<unknown> = async () => undefined, maxAttempts = 10) {
  let calls = 0;
  return optimisticTransaction(
    redis,
    {
      watch: [key],
      run: async (read) => {
        const current = Number((await read.get(key)) ?? 0);
        await meddle(++calls);
        return [["SET", key, current + amount]];
      },
    },
    { maxAttempts, baseDelayMs: 0, maxDelayMs: 0 },
  );
}

describe("optimistic transactions on one Redis server", () => {
  it("commits at once when nobody else wrote, answering EXEC's replies", async () => {
    const key = `counter:${randomUUID()}`;
    const result = await addOptimistically(key, 5);
    expect(result).toEqual({ value: ["OK"], attempts: 1, conflicts: 0 });
    expect(await redis.get(key)).toBe("5");
  });

  it("starts over when another client writes between the read and EXEC, and counts the conflict", async () => {
    const key = `counter:${randomUUID()}`;
    const result = await addOptimistically(key, 5, (call) => (call === 1 ? other.set(key, "100") : Promise.resolve()));
    expect(result.attempts).toBe(2);
    expect(result.conflicts).toBe(1);
    expect(await redis.get(key)).toBe("105");
  });

  it("throws VersionConflictError after maxAttempts conflicts, leaving only the other client's write", async () => {
    const key = `counter:${randomUUID()}`;
    const error = await addOptimistically(key, 5, (call) => other.set(key, String(call)), 3).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as VersionConflictError).attempts).toBe(3);
    expect(await redis.get(key)).toBe("3");
  });

  it("commits nothing when run returns null, and leaves no watch behind", async () => {
    const key = `counter:${randomUUID()}`;
    const result = await optimisticTransaction(redis, { watch: [key], run: () => null });
    expect(result).toEqual({ value: null, attempts: 1, conflicts: 0 });
    expect(await redis.exists(key)).toBe(0);
    await other.set(key, "1");
    expect((await addOptimistically(key, 1)).attempts).toBe(1);
  });

  it("rethrows what run throws, commits nothing, and leaves no watch behind", async () => {
    const key = `counter:${randomUUID()}`;
    const failure = new Error("run failed");
    await expect(
      optimisticTransaction(redis, {
        watch: [key],
        run: async (read) => {
          await read.get(key);
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
    expect(await redis.exists(key)).toBe(0);
    await other.set(key, "1");
    expect((await addOptimistically(key, 1)).attempts).toBe(1);
  });

  it("writes nothing when EXEC refuses a transaction whose command the server rejected while queueing", async () => {
    const [key, counter] = [`{tx:${randomUUID()}}:a`, `{tx:${randomUUID()}}:b`];
    const transaction = optimisticTransaction(redis, {
      watch: [key],
      run: () => [
        ["SET", key, "written"],
        ["INCRBY", counter],
      ],
    });
    await expect(transaction).rejects.toThrow(/EXECABORT/);
    expect(await redis.exists(key, counter)).toBe(0);
  });

  it("runs concurrent transactions of one client one at a time on its watch connection, losing no update", async () => {
    const key = `counter:${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => addOptimistically(key, 1)));
    expect(await redis.get(key)).toBe("5");
    expect(results.map((result) => result.conflicts)).toEqual([0, 0, 0, 0, 0]);
  });

  it("does not watch on the caller's own connection: a MULTI/EXEC there meanwhile commits", async () => {
    const key = `counter:${randomUUID()}`;
    const mine = `mine:${randomUUID()}`;
    const result = await addOptimistically(key, 1, async () => {
      expect(await redis.multi().set(mine, "committed").exec()).toEqual([[null, "OK"]]);
    });
    expect(result.attempts).toBe(1);
    expect(await redis.get(mine)).toBe("committed");
  });

  it("disconnects the client's watch connection when the client quits", async () => {
    const name = `fence-${randomUUID()}`;
    const client = new Redis(server.url, { connectionName: name });
    await optimisticTransaction(client, { watch: [`counter:${randomUUID()}`], run: () => null });
    expect(await connectionsNamed(name)).toBe(2);
    await client.quit();
    await until(async () => (await connectionsNamed(name)) === 0);
  });
});

async function connectionsNamed(name: string): Promise<number> {
  const clients = String(await server.command("CLIENT", "LIST"));
  return clients.split("\n").filter((line) => line.includes(` name=${name} `)).length;
}

/** Asks again every 20 ms until `fact` holds (the test's timeout bounds it). */
async function until(fact: () => Promise<boolean>): Promise<void> {
  while (!(await fact())) await new Promise((resolve) => setTimeout(resolve, 20));
}
