import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { lineKey } from "../keys/lock-keys.js";
import { readLiveSemaphore, soonestLapseMs } from "../semaphore/live-semaphore.js";
import { type HoldContext, readHold } from "./hold-context.js";
import { releaseHold } from "./release-hold.js";
import { takeHold } from "./take-hold.js";

/**
 * One attempt at a set of keys for one owner. nats-server 2.9 has no write of several keys at once, so the set is read
 * first, all keys and their lines together, and refused without a write while any key is held by another owner or
 * has waiters in line (never overtaking them); else the keys are
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
  const [holds, lines] = await Promise.all([
    Promise.all(bucketKeys.map((bucketKey) => readHold(context, bucketKey))),
    Promise.all(requests.map(({ key }) => readLiveSemaphore(context, lineKey(key)))),
  ]);
  const ownerSecret = requests[0]?.ownerSecret;
  const owned = holds.map(({ hold }) => hold !== undefined && hold.takeoverInMs > 0 && hold.record.secret === ownerSecret);
  const busy = holds.flatMap(({ hold }, index) => (hold !== undefined && hold.takeoverInMs > 0 && !owned[index] ? [hold.takeoverInMs] : []));
  // A key others wait for is not taken past its line, unless the owner holds it already.
  const queued = lines.flatMap((line, index) => ((line.record?.line.length ?? 0) > 0 && !owned[index] ? [soonestLapseMs(line)] : []));
  busy.push(...queued);
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
