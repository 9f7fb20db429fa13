export type { Mysql2Pool } from "./clients/mysql2-api.js";
export type { PgPool } from "./clients/pg-api.js";
export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { LockTableMigrationProvider } from "./migrations/lock-table-migration-provider.js";
export { migrateLockTable } from "./migrations/migrate-lock-table.js";
export { DEFAULT_SQL_LOCK_OPTIONS, SQL_LOCK_MODES, type SqlLockMode, type SqlLockProviderOptions } from "./options/sql-lock-provider-options.js";
export { MAX_TABLE_NAME_LENGTH, validateTableName } from "./options/validate-table-name.js";
export { SQL_DIALECT_NAMES, type SqlDialectName } from "./sql-dialect-name.js";
export { SqlLockProvider } from "./sql-lock-provider.js";
