import { sql } from "kysely";
import type { AnyKysely } from "../table/any-kysely.js";
import { releaseChannel, waiterTag } from "./postgres-lock-functions.js";

/**
 * Tells the waiter whose owner secret is `secret` that it is its turn on `key`, in the release function's format on
 * lock table `table`'s channel; inside a transaction the notification goes out at commit.
 */
export async function announceTurn(db: AnyKysely, table: string, key: string, secret: string): Promise<void> {
  await sql`select pg_notify(${releaseChannel(table)}, ${`${waiterTag(secret)}:${key}`})`.execute(db);
}
