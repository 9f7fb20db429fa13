import type { DriverRenewal } from "@distlock/core/driver";
import type { RedisCalls } from "../connection/redis-calls.js";
import { slotBatches } from "../keys/slot-batches.js";
import type { RedisScript } from "./redis-script.js";

/**
 * Extends leases with one call of `script` (ARGV: owner secret and ttl ms per key, in key order; replies one 1|0 per
 * key) per Cluster slot and `batchSize` leases. `keys[i]` is the key `script` takes for `renewals[i]`. One boolean per
 * renewal, in order.
 */
export async function renewInBatches(
  calls: RedisCalls,
  script: RedisScript,
  keys: readonly string[],
  renewals: readonly DriverRenewal[],
  batching: { readonly cluster: boolean; readonly batchSize: number },
): Promise<boolean[]> {
  const renewed = renewals.map(() => false);
  await Promise.all(
    slotBatches(keys, batching.cluster, batching.batchSize).map(async (batch) => {
      const args = batch.flatMap((i) => [(renewals[i] as DriverRenewal).ownerSecret, (renewals[i] as DriverRenewal).ttlMs]);
      const reply = (await calls.run(
        "renew",
        script,
        batch.map((i) => keys[i] as string),
        args,
      )) as number[];
      batch.forEach((index, j) => {
        renewed[index] = reply[j] === 1;
      });
    }),
  );
  return renewed;
}
