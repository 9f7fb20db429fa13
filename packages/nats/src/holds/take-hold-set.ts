import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { type HoldContext, readHold } from "./hold-context.js";
import { releaseHold } from "./release-hold.js";
import { takeHold } from "./take-hold.js";

/**
 * One attempt at a set of keys for one owner. nats-server 2.9 has no write of several keys at once, so the set is read
 * first, all keys together, and refused without a write while any key is held by another owner; else the keys are
 * taken in order, and a key lost to a racing writer gives back those taken before the refusal. Reading the whole set
 * also starts this process's count of every key's lease at once, so a set whose holder died frees within one lease
 * rather than one lease per key. A crash between two takes leaves the keys taken to their leases, as core's key-by-key
 * path would.
 */
export async function takeHoldSet(
  context: HoldContext,
  bucketKeys: readonly string[],
  requests: readonly DriverAcquireRequest[],
): Promise<DriverGranted[] | DriverRefused> {
  const holds = await Promise.all(bucketKeys.map((bucketKey) => readHold(context, bucketKey)));
  const ownerSecret = requests[0]?.ownerSecret;
  const busy = holds.flatMap(({ hold }) => (hold !== undefined && hold.takeoverInMs > 0 && hold.record.secret !== ownerSecret ? [hold.takeoverInMs] : []));
  if (busy.length > 0) return { acquired: false, retryAfterMs: Math.ceil(Math.max(...busy)) };
  const granted: DriverGranted[] = [];
  for (const [index, request] of requests.entries()) {
    const outcome = await takeHold(context, bucketKeys[index] as string, request);
    if (!outcome.acquired) {
      await Promise.all(granted.map((_, taken) => releaseHold(context, bucketKeys[taken] as string, request.ownerSecret)));
      return outcome;
    }
    granted.push(outcome);
  }
  return granted;
}
