import { randomUUID } from "node:crypto";
import { runAsLockOwner } from "@distlock/core";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryExecutor, QueryResult, RootOperationNode, UnknownRow } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openSqlConnection } from "../src/connection/open-sql-connection.js";
import { resolveSqlLockOptions } from "../src/options/resolve-sql-lock-options.js";
import { SqlLockProvider } from "../src/sql-lock-provider.js";

const TTL = { ttlMs: 30_000 };

/** Records the text of every statement a provider sends through a Kysely instance, as `executor` compiles it. */
class StatementLog implements KyselyPlugin {
  readonly sent: string[] = [];
  readonly #executor: QueryExecutor;

  constructor(executor: QueryExecutor) {
    this.#executor = executor;
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    this.sent.push(this.#executor.compileQuery(node, queryId).sql.trim());
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }

  /** What `run` came to, and the statements it sent. */
  async during<T>(run: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
    const from = this.sent.length;
    const result = await run();
    return { result, sent: this.sent.slice(from) };
  }
}

/**
 * Asserts that `sent` is one unit of work: one call of the table's `<name>` function on PostgreSQL, else one transaction
 * that ends with `end` and opens and ends no other.
 */
function expectOneUnit(dialect: string, sent: readonly string[], name: "acquire_all" | "release_all", end: "commit" | "rollback"): void {
  if (dialect === "postgres") {
    expect(sent).toEqual([expect.stringContaining(`_${name}"(`)]);
    return;
  }
  const boundaries = sent.filter((text) => /^(start transaction|begin|commit|rollback)/i.test(text));
  expect(boundaries).toEqual([expect.stringMatching(/^(start transaction|begin immediate)$/), end]);
  expect([sent[0], sent.at(-1)]).toEqual(boundaries);
}

/** Multi-key sets on the lock table at `url`: one transaction (PostgreSQL: one statement) per set, all or nothing. */
export function describeKeySets(dialect: "postgres" | "mysql" | "sqlite", url: string): void {
  describe(`${dialect}: multi-key sets on the lock table`, () => {
    const connection = openSqlConnection(resolveSqlLockOptions({ url }));
    const log = new StatementLog(connection.db.getExecutor());
    const providers: SqlLockProvider[] = [];
    /** A provider whose statements go through `log`; migrated, so that its statements are only the lock operations. */
    const logged = async () => {
      const created = new SqlLockProvider({ kysely: connection.db.withPlugin(log), dialect, purgeIntervalMs: 0 });
      providers.push(created);
      await created.migrate();
      return created;
    };
    afterEach(async () => {
      await Promise.all(providers.splice(0).map((p) => p.close()));
    });
    afterAll(() => connection.close());
    const keySet = (label: string) => {
      const base = `key-set:${label}:${randomUUID()}`;
      return [`${base}:a`, `${base}:b`, `${base}:c`];
    };

    it("takes a set, re-entering the key its owner holds, in one transaction and releases it in one", async () => {
      const locks = await logged();
      const keys = keySet("one");
      await runAsLockOwner(async () => {
        const held = await locks.acquire(keys[1] as string, TTL);
        const { result: set, sent } = await log.during(() => locks.tryAcquireAll(keys, TTL));
        expectOneUnit(dialect, sent, "acquire_all", "commit");
        expect(set?.locks.map((lock) => lock.holdCount)).toEqual([1, 2, 1]);
        expect(set?.fencingTokens.get(keys[1] as string)).toBe(held.fencingToken);
        expectOneUnit(dialect, (await log.during(async () => set?.release())).sent, "release_all", "commit");
        expect((await locks.inspect(keys[1] as string))?.holdCount).toBe(1);
        await held.release();
      });
    });

    it("one key held by another owner: the set's transaction takes nothing, and leaves the other keys' tokens as they were", async () => {
      const [caller, other] = [await logged(), await logged()];
      const keys = keySet("refused");
      const first = await caller.acquireAll(keys, TTL);
      await first.release();
      const blocker = await other.acquire(keys[1] as string, TTL);
      const { result, sent } = await log.during(() => caller.tryAcquireAll(keys, TTL));
      expect(result).toBeNull();
      expectOneUnit(dialect, sent, "acquire_all", "rollback");
      for (const key of [keys[0], keys[2]] as string[]) expect(await caller.inspect(key)).toBeNull();
      await blocker.release();
      const next = await caller.acquireAll(keys, TTL);
      // Had the refused attempt taken the free keys and given them back, their tokens would have moved on by two.
      for (const key of keys) expect(next.fencingTokens.get(key), key).toBe((first.fencingTokens.get(key) as bigint) + (key === keys[1] ? 2n : 1n));
      await next.release();
    });
  });
}
