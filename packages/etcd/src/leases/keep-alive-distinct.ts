import type { LeaseKeeper } from "./lease-keeper.js";

/** One fresh keepalive per distinct lease, in parallel (a session lease once however many holds share it); the leases etcd still knows. */
export async function keepAliveDistinct(leases: readonly LeaseKeeper[]): Promise<Set<LeaseKeeper>> {
  const distinct = [...new Set(leases)];
  const answers = await Promise.all(distinct.map((lease) => lease.keepAlive()));
  return new Set(distinct.filter((_, i) => answers[i]?.alive === true));
}
