import type { QueryResult } from "kysely";
import type { AnyKysely } from "./any-kysely.js";

/** Runs a compiled statement's text with its parameters and answers as kysely's `executeQuery` would. */
export type DirectQuery = (text: string, values: readonly unknown[]) => Promise<QueryResult<unknown>>;

const directQueries = new WeakMap<AnyKysely, DirectQuery>();

/**
 * Lets the statements this package compiles (`CompiledStatement`) skip `db`'s per-query connection provider and run on
 * `query`: only for a Kysely instance the package made itself, with no plugin that could rewrite a result.
 */
export function runStatementsDirectly(db: AnyKysely, query: DirectQuery): void {
  directQueries.set(db, query);
}

/** The direct way to run statements on `db`, if it has one (never inside a transaction, whose `trx` is another object). */
export function directQueryOf(db: AnyKysely): DirectQuery | undefined {
  return directQueries.get(db);
}
