import { type Kysely, MysqlAdapter, PostgresAdapter, SqliteAdapter, sql } from "kysely";

/** The SQL families the fenced writes speak. */
export type FenceDialect = "postgres" | "mysql" | "sqlite";

/** Any kysely instance or transaction; the helpers name tables and columns as strings. */
// biome-ignore lint/suspicious/noExplicitAny: the caller's schema type is not needed to build these statements.
export type AnyDb = Kysely<any>;

const INTEGER_TYPE: Record<FenceDialect, string> = { postgres: "bigint", mysql: "signed", sqlite: "integer" };

/** Which SQL family a kysely instance (or a transaction of one) talks to. */
export function dialectOf(db: AnyDb): FenceDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return "postgres";
  if (adapter instanceof MysqlAdapter) return "mysql";
  if (adapter instanceof SqliteAdapter) return "sqlite";
  throw new TypeError(`@distlock/fence/sql supports kysely's PostgreSQL, MySQL and SQLite dialects, not ${adapter.constructor.name}`);
}

/**
 * A 64-bit integer parameter, cast on the server: drivers differ in how they send a JS bigint (pg refuses some, mysql2
 * and better-sqlite3 accept them), but every one sends a string, and the cast makes the comparison numeric.
 */
export function integerParam(dialect: FenceDialect, value: bigint) {
  return sql<string>`cast(${value.toString()} as ${sql.raw(INTEGER_TYPE[dialect])})`;
}

/** A stored integer as the drivers return it (number, bigint, or a decimal string for pg's int8), or null. */
export function readInteger(value: unknown): bigint | null {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
  return null;
}
