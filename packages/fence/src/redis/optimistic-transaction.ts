import { InvalidArgumentError } from "@distlock/core";
import { CONFLICT, type OptimisticResult, type OptimisticRetryOptions, resolveRetryOptions, retryOptimistically } from "../optimistic-retry.js";
import { checkCommands, checkKeys } from "./command-checks.js";
import type { RedisClient, RedisCommand } from "./fenced-script.js";
import { watchConnectionOf } from "./watch-connection.js";

/** One optimistic transaction: what to watch, and the commands to commit given what was read. */
export interface OptimisticTransactionSpec {
  /** Keys whose change by anyone else between the reads and EXEC makes the attempt start over. */
  watch: readonly string[];
  /**
   * Reads through `read`, the watching connection (read only: a MULTI, EXEC or UNWATCH on it would end the watch), and
   * returns the commands to commit, or null to commit nothing. Called again after every conflict.
   */
  run: (read: RedisClient) => Promise<readonly RedisCommand[] | null> | readonly RedisCommand[] | null;
}

/**
 * WATCH, `run`, then MULTI/EXEC of its commands; when a watched key changed in between, EXEC writes nothing and the
 * attempt starts over (retried with backoff, `VersionConflictError` after `maxAttempts`). The value is EXEC's replies,
 * or null when `run` returned null. Runs on the client's own watch connection (see `WatchConnection`).
 *
 * EXEC refuses the whole transaction when a command was rejected while queued (wrong arity, unknown command), but a
 * command failing at run time (e.g. WRONGTYPE) does not undo the others: the first such error is thrown.
 */
export async function optimisticTransaction(
  redis: RedisClient,
  spec: OptimisticTransactionSpec,
  options?: OptimisticRetryOptions,
): Promise<OptimisticResult<unknown[] | null>> {
  if (typeof spec !== "object" || spec === null) throw new InvalidArgumentError("spec", "must be { watch, run }");
  const watch = checkKeys(spec.watch, "spec.watch");
  if (typeof spec.run !== "function") throw new InvalidArgumentError("spec.run", "must be a function returning the commands to commit, or null");
  resolveRetryOptions(options);
  if (typeof redis !== "object" || redis === null || typeof redis.duplicate !== "function") {
    throw new InvalidArgumentError("redis", "must be an ioredis Redis or Cluster client");
  }
  const connection = watchConnectionOf(redis);
  const resource = `redis keys ${watch.map((key) => JSON.stringify(key)).join(", ")}`;
  return retryOptimistically(resource, options, () => connection.exclusive((watching) => attempt(watching, watch, spec.run)));
}

async function attempt(watching: RedisClient, watch: readonly string[], run: OptimisticTransactionSpec["run"]): Promise<unknown[] | null | typeof CONFLICT> {
  await watching.watch(...watch);
  let commands: readonly RedisCommand[];
  try {
    const planned = await run(watching);
    if (planned === null) {
      await watching.unwatch();
      return null;
    }
    commands = checkCommands(planned, "spec.run() result");
  } catch (error) {
    await watching.unwatch().catch(() => undefined);
    throw error;
  }
  const transaction = watching.multi();
  for (const [name, ...args] of commands) transaction.call(name, ...args);
  const replies = await transaction.exec();
  if (replies === null) return CONFLICT;
  const failed = replies.find(([error]) => error !== null);
  if (failed !== undefined) throw failed[0];
  return replies.map(([, reply]) => reply);
}
