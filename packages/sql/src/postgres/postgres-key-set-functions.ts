import { sql } from "kysely";
import type { AnyKysely } from "../table/any-kysely.js";
import { acquireFunctionName, releaseFunctionName } from "./postgres-lock-functions.js";

/** The PL/pgSQL function that takes a set of keys on lock table `table`. */
export function acquireAllFunctionName(table: string): string {
  return `${table}_acquire_all`;
}

/** The PL/pgSQL function that releases a set of keys on lock table `table`. */
export function releaseAllFunctionName(table: string): string {
  return `${table}_release_all`;
}

/** The SQLSTATE with which the acquire-all function rolls back what it took once a key refuses. */
const SET_REFUSED = "DL001";

/**
 * Creates (or replaces) the multi-key functions of lock table `table`, on top of its single-key ones: one call runs the
 * single-key acquire (never joining a line) for each key in the order given, which the caller makes the global key order
 * so the rows are locked in it, inside a block that rolls all of it back at the first refusal and answers that refusal;
 * the release function runs the single-key release for each key, one outcome per key (-1: not held).
 * `table` is a validated plain identifier.
 */
export async function createPostgresKeySetFunctions(db: AnyKysely, table: string): Promise<void> {
  const acquire = `"${acquireFunctionName(table)}"`;
  const release = `"${releaseFunctionName(table)}"`;
  await sql
    .raw(`create or replace function "${acquireAllFunctionName(table)}"(p_keys text[], p_secret text, p_holder text, p_ttl_ms bigint)
returns table (hold_count integer, fencing_token text, ttl_ms bigint) language plpgsql as $body$
#variable_conflict use_column
declare
  counts integer[] := '{}';
  tokens text[] := '{}';
  leases bigint[] := '{}';
  attempt record;
begin
  begin
    for i in 1 .. cardinality(p_keys) loop
      select * into attempt from ${acquire}(p_keys[i], p_secret, p_holder, p_ttl_ms, 0);
      if attempt.hold_count = 0 then
        ttl_ms := attempt.ttl_ms;
        raise exception using errcode = '${SET_REFUSED}';
      end if;
      counts := counts || attempt.hold_count;
      tokens := tokens || attempt.fencing_token;
      leases := leases || attempt.ttl_ms;
    end loop;
  exception when sqlstate '${SET_REFUSED}' then
    -- Refused: everything the block took is rolled back; one row with hold_count 0 and the refusing holder's lease.
    hold_count := 0;
    fencing_token := null;
    return next;
    return;
  end;
  return query select * from unnest(counts, tokens, leases);
end
$body$`)
    .execute(db);
  await sql
    .raw(`create or replace function "${releaseAllFunctionName(table)}"(p_keys text[], p_secret text)
returns table (hold_count integer) language plpgsql as $body$
#variable_conflict use_column
declare
  left_count integer;
begin
  for i in 1 .. cardinality(p_keys) loop
    select r.hold_count into left_count from ${release}(p_keys[i], p_secret) r;
    hold_count := case when found then left_count else -1 end;
    return next;
  end loop;
end
$body$`)
    .execute(db);
}
