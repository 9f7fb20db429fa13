import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { AnyKysely } from "../table/any-kysely.js";
import { waiterTableName } from "../table/waiter-line.js";

/** The PL/pgSQL function that acquires on lock table `table`. */
export function acquireFunctionName(table: string): string {
  return `${table}_acquire`;
}

/** The PL/pgSQL function that releases on lock table `table`. */
export function releaseFunctionName(table: string): string {
  return `${table}_release`;
}

/**
 * A waiter's public name in notifications: the SHA-256 of its owner secret in hex, the same as the release
 * function's `encode(sha256(convert_to(secret, 'UTF8')), 'hex')`. It never reveals the secret.
 */
export function waiterTag(ownerSecret: string): string {
  return createHash("sha256").update(ownerSecret, "utf8").digest("hex");
}

/** The LISTEN/NOTIFY channel of lock table `table`. */
export function releaseChannel(table: string): string {
  return `distlock_${table}`;
}

/**
 * Creates (or replaces) the acquire and release functions of lock table `table`. Acquire also keeps a waiter's
 * place in line and leaves it on a grant, and reports a refusal with the holder's remaining lease, so any attempt
 * is one call. A client then sends a short
 * call instead of a long upsert, and PL/pgSQL keeps each body's plan for the connection's lifetime: the speed
 * of named prepared statements, but the caching is the server's own, so nothing breaks when a pooler
 * (PgBouncer in transaction mode) moves calls between connections. `table` is a validated plain identifier.
 */
export async function createPostgresLockFunctions(db: AnyKysely, table: string): Promise<void> {
  const locks = `"${table}"`;
  const waiters = `"${waiterTableName(table)}"`;
  const now = "floor(extract(epoch from statement_timestamp()) * 1000)::bigint";
  const mine = "(t.owner_secret = p_secret and t.expires_at > now_ms)";
  await sql
    .raw(`create or replace function "${acquireFunctionName(table)}"(p_key text, p_secret text, p_holder text, p_ttl_ms bigint, p_claim_ms bigint)
returns table (hold_count integer, fencing_token text, ttl_ms bigint) language plpgsql as $body$
#variable_conflict use_column
declare
  now_ms bigint := ${now};
begin
  -- A waiter (p_claim_ms > 0) first joins the line behind everyone in it, or keeps its place live for another claim window.
  if p_claim_ms > 0 then
    insert into ${waiters} as w (lock_key, waiter_secret, ticket, expires_at)
      select p_key, p_secret, coalesce(max(n.ticket), 0) + 1, now_ms + p_claim_ms from ${waiters} n where n.lock_key = p_key
    on conflict (lock_key, waiter_secret) do update set expires_at = now_ms + p_claim_ms;
  end if;
  -- Takes a free or expired row (counter + 1) unless a live waiter is before the caller in line; re-enters an own one.
  insert into ${locks} as t (lock_key, owner_secret, holder, hold_count, fencing_token, expires_at)
    select p_key, p_secret, p_holder, 1, coalesce(max(f.fencing_token), 0) + 1, now_ms + p_ttl_ms
    from ${locks} f where f.lock_key = ''
  on conflict (lock_key) do update set
    hold_count = case when ${mine} then t.hold_count + 1 else 1 end,
    fencing_token = case when ${mine} then t.fencing_token else t.fencing_token + 1 end,
    holder = case when ${mine} then t.holder else p_holder end,
    expires_at = case when ${mine} then greatest(t.expires_at, now_ms + p_ttl_ms) else now_ms + p_ttl_ms end,
    owner_secret = p_secret
  where ${mine}
    or ((t.owner_secret is null or t.expires_at <= now_ms)
      and not exists (select 1 from ${waiters} o where o.lock_key = p_key and o.waiter_secret <> p_secret and o.expires_at > now_ms
        and not exists (select 1 from ${waiters} m where m.lock_key = p_key and m.waiter_secret = p_secret and m.expires_at > now_ms
          and (m.ticket < o.ticket or (m.ticket = o.ticket and m.waiter_secret < o.waiter_secret)))))
  returning t.hold_count, t.fencing_token::text, t.expires_at - now_ms into hold_count, fencing_token, ttl_ms;
  if found then
    if p_claim_ms > 0 then
      delete from ${waiters} w where w.lock_key = p_key and w.waiter_secret = p_secret;
    end if;
    return next;
    return;
  end if;
  -- Refused: hold_count 0 and the holder's remaining lease (null when the key is free but promised to a waiter).
  hold_count := 0;
  fencing_token := null;
  select t.expires_at - now_ms into ttl_ms from ${locks} t where t.lock_key = p_key and t.owner_secret is not null and t.expires_at > now_ms;
  return next;
end
$body$`)
    .execute(db);
  await sql
    .raw(`create or replace function "${releaseFunctionName(table)}"(p_key text, p_secret text)
returns table (hold_count integer) language plpgsql as $body$
#variable_conflict use_column
declare
  now_ms bigint := ${now};
  next_secret text;
begin
  update ${locks} as t set hold_count = t.hold_count - 1,
      owner_secret = case when t.hold_count = 1 then null else t.owner_secret end,
      expires_at = case when t.hold_count = 1 then now_ms else t.expires_at end
    where t.lock_key = p_key and t.owner_secret = p_secret and t.expires_at > now_ms
    returning t.hold_count into hold_count;
  if not found then
    return;
  end if;
  -- A freed key is announced (at commit) to the first live waiter in its line only: no NOTIFY without waiters,
  -- and one wake-up per release rather than one per waiter.
  if hold_count = 0 then
    select w.waiter_secret into next_secret from ${waiters} w where w.lock_key = p_key and w.expires_at > now_ms
      order by w.ticket, w.waiter_secret limit 1;
    if found then
      perform pg_notify('${releaseChannel(table)}', encode(sha256(convert_to(next_secret, 'UTF8')), 'hex') || ':' || p_key);
    end if;
  end if;
  return next;
end
$body$`)
    .execute(db);
}
