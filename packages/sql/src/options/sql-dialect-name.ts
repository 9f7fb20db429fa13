/** The databases this package speaks to; also the provider's `backend` name. */
export type SqlDialectName = "postgres" | "mysql" | "sqlite";

/** Every supported dialect, for validation messages. */
export const SQL_DIALECT_NAMES: readonly SqlDialectName[] = Object.freeze(["postgres", "mysql", "sqlite"]);
