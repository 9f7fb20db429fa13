import { createHash } from "node:crypto";

/** How one key is named to the database's own lock functions. */
export interface SessionLockId {
  /** PostgreSQL: the 64-bit advisory lock key, as decimal text (`::int8`). */
  readonly pgKey: string;
  /** PostgreSQL: the same key as `pg_locks` shows it (high and low 32 bits as unsigned `oid`s). */
  readonly pgClassId: number;
  readonly pgObjId: number;
  /** MySQL/MariaDB: a `GET_LOCK` name within the 64-character limit; hex, since the server compares names case-insensitively. */
  readonly mysqlName: string;
}

const MYSQL_NAME_PREFIX = "dl:";
/** 60 hex digits (240 bits) + the prefix = 63 characters. */
const MYSQL_NAME_HEX_DIGITS = 60;

/**
 * Names `key` of lock space `namespace` (the table; on MySQL `database.table`) by SHA-256 of both. Two keys that
 * collide (2⁻⁶⁴ per pair on PostgreSQL, 2⁻²⁴⁰ on MySQL) share one server lock: they contend with each other, but each
 * is still held by at most one owner.
 */
export function sessionLockId(namespace: string, key: string): SessionLockId {
  const digest = createHash("sha256").update(namespace).update("\0").update(key).digest();
  return {
    pgKey: digest.readBigInt64BE(0).toString(),
    pgClassId: digest.readUInt32BE(0),
    pgObjId: digest.readUInt32BE(4),
    mysqlName: MYSQL_NAME_PREFIX + digest.toString("hex").slice(0, MYSQL_NAME_HEX_DIGITS),
  };
}
