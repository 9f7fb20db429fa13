import type { Kysely } from "kysely";

/** Any Kysely instance or transaction; the lock table is addressed with raw SQL, so no schema type is needed. */
// biome-ignore lint/suspicious/noExplicitAny: the provider works on the caller's database, whatever its schema type.
export type AnyKysely = Kysely<any>;
