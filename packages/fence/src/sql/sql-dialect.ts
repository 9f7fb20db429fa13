import { type Kysely, MysqlAdapter, PostgresAdapter, SqliteAdapter, sql } from "kysely";

/** The SQL families the fenced writes speak. */
export type FenceDialect = "postgres" | "mysql" | "sqlite";

/** Any kysely instance or transaction; the helpers name tables and columns as strings. */
// biome-ignore lint/suspicious/noExplicitAny: the caller's schema type is not needed to build these statements.
export type AnyDb = Kysely<any>;

const INTEGER_TYPE: Record<Exclude<FenceDialect, "postgres">, string> = { mysql: "signed", sqlite: "integer" };

/** Which SQL family a kysely instance (or a transaction of one) talks to. */
export function dialectOf(db: AnyDb): FenceDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return "postgres";
  if (adapter instanceof MysqlAdapter) return "mysql";
  if (adapter instanceof SqliteAdapter) return "sqlite";
  throw new TypeError(`@distlock/fence/sql supports kysely's PostgreSQL, MySQL and SQLite dialects, not ${adapter.constructor.name}`);
}

/**
 * A 64-bit integer parameter, sent as its decimal string (drivers differ in how they send a JS bigint): PostgreSQL types
 * it from the column it is compared with or stored in; MySQL would compare a string as a double, and SQLite is cast
 * alike, so both get an explicit cast. Pass the decimal string (or a shaped statement's placeholder for it).
 */
export function integerParam(dialect: FenceDialect, value: unknown) {
  if (dialect === "postgres") return sql<string>`${value}`;
  return sql<string>`cast(${value} as ${sql.raw(INTEGER_TYPE[dialect])})`;
}

/** A stored integer as the drivers return it (number, bigint, or a decimal string for pg's int8), or null. */
export function readInteger(value: unknown): bigint | null {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
  return null;
}
