import BetterSqlite3 from "better-sqlite3";
import { CamelCasePlugin, type CompiledQuery, Kysely, type KyselyPlugin, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { CompiledStatement } from "./compiled-statement.js";

/** Records the SQL text of every query the instance runs. */
function recordingKysely(plugins: KyselyPlugin[] = []): { db: Kysely<Record<string, never>>; sent: string[] } {
  const sent: string[] = [];
  const db = new Kysely<Record<string, never>>({
    dialect: new SqliteDialect({ database: new BetterSqlite3(":memory:") }),
    plugins,
    log: (event) => {
      if (event.level === "query") sent.push((event.query as CompiledQuery).sql);
    },
  });
  return { db, sent };
}

const opened: Kysely<Record<string, never>>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});

describe("CompiledStatement", () => {
  it("sends the text compiled by the first call with each later call's values", async () => {
    const { db, sent } = recordingKysely();
    opened.push(db);
    const statement = new CompiledStatement((a: number, b: string) => sql<{ sum: number; label: string }>`select ${a} + 1 as sum, ${b} as label`);
    const first = await statement.execute(db, 1, "one");
    const second = await statement.execute(db, 41, "two");
    expect(first.rows).toEqual([{ sum: 2, label: "one" }]);
    expect(second.rows).toEqual([{ sum: 42, label: "two" }]);
    expect(sent).toEqual(["select ? + 1 as sum, ? as label", "select ? + 1 as sum, ? as label"]);
  });

  it("compiles through the instance's plugins, so the cached text is what kysely would have sent", async () => {
    const { db, sent } = recordingKysely([new CamelCasePlugin()]);
    opened.push(db);
    const statement = new CompiledStatement((value: number) => sql<{ theValue: number }>`select ${value} as ${sql.ref("theValue")}`);
    expect((await statement.execute(db, 7)).rows).toEqual([{ theValue: 7 }]);
    expect((await statement.execute(db, 8)).rows).toEqual([{ theValue: 8 }]);
    expect(sent).toEqual(['select ? as "the_value"', 'select ? as "the_value"']);
  });

  it("refuses a build that does not bind its values in the order given, before any statement is sent", async () => {
    const { db, sent } = recordingKysely();
    opened.push(db);
    const reordered = new CompiledStatement((a: number, b: number) => sql`select ${b}, ${a}`);
    const withConstant = new CompiledStatement((a: number) => sql`select ${a}, ${5}`);
    const twice = new CompiledStatement((a: number) => sql`select ${a}, ${a}`);
    await expect(reordered.execute(db, 3, 3)).rejects.toThrow(/bind each of its values once, in order/);
    await expect(withConstant.execute(db, 1)).rejects.toThrow(/bind each of its values once, in order/);
    await expect(twice.execute(db, 1)).rejects.toThrow(/bind each of its values once, in order/);
    expect(sent).toEqual([]);
  });
});
