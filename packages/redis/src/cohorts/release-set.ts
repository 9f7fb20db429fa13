/** One key's release outcome, as `LockDriver.release` answers it. */
type Released = { held: boolean; holdCount: number };

/**
 * Releases a set of one owner's keys: those `throughCohort` says the owner holds through a process cohort one by one
 * with `releaseOne` (so each goes back the way it came), the rest together with `releaseTogether`; one outcome per
 * key, in order. A key a set waited for alone came through the server's line, and so as a cohort's hold.
 */
export async function releaseSet(
  keys: readonly string[],
  throughCohort: (key: string) => boolean,
  releaseOne: (key: string) => Promise<Released>,
  releaseTogether: (keys: readonly string[]) => Promise<Released[]>,
): Promise<Released[]> {
  const alone = keys.filter(throughCohort);
  if (alone.length === 0) return releaseTogether(keys);
  const rest = keys.filter((key) => !alone.includes(key));
  const [single, together] = await Promise.all([Promise.all(alone.map(releaseOne)), rest.length === 0 ? [] : releaseTogether(rest)]);
  const outcomes = new Map<string, Released>([
    ...alone.map((key, i) => [key, single[i]] as const),
    ...rest.map((key, i) => [key, together[i]] as const),
  ] as Array<[string, Released]>);
  return keys.map((key) => outcomes.get(key) as Released);
}
