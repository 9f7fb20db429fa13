import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";

/**
 * `requests` (in key order) cut into runs of neighbours in which no key extends another with `/` (`a` and `a/b`): the
 * lock prefix of `a` holds the member keys of `a/b` too, and one txn would give both the same create revision, so `a`
 * would have two members of one age. Every other set is one run.
 */
export function unnestedRuns(requests: readonly DriverAcquireRequest[]): DriverAcquireRequest[][] {
  const runs: DriverAcquireRequest[][] = [];
  let run: DriverAcquireRequest[] = [];
  for (const request of requests) {
    if (run.some(({ key }) => request.key.startsWith(`${key}/`))) {
      runs.push(run);
      run = [];
    }
    run.push(request);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Every request or none, one `take` (one txn) per run, the runs one after the other; when a later run is refused or
 * fails, the keys the earlier runs took are given back with `release` before the answer.
 */
export async function takeInRuns(
  requests: readonly DriverAcquireRequest[],
  take: (run: readonly DriverAcquireRequest[]) => Promise<DriverGranted[] | DriverRefused>,
  release: (keys: readonly string[], ownerSecret: string) => Promise<unknown>,
): Promise<DriverGranted[] | DriverRefused> {
  const grants: DriverGranted[] = [];
  const giveBack = async () => {
    const taken = requests.slice(0, grants.length);
    if (taken.length > 0)
      await release(
        taken.map(({ key }) => key),
        (taken[0] as DriverAcquireRequest).ownerSecret,
      ).catch(() => undefined);
  };
  for (const run of unnestedRuns(requests)) {
    const result = await take(run).catch(async (error: unknown) => {
      await giveBack();
      throw error;
    });
    if (!Array.isArray(result)) {
      await giveBack();
      return result;
    }
    grants.push(...result);
  }
  return grants;
}
