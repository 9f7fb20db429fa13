import type { Lock } from "@distlock/core";
import { resolveEtcdLockOptions } from "@distlock/etcd/internal";
import { fencedTxn } from "@distlock/fence/etcd";
import { Etcd3, GRPCGenericError } from "etcd3";
import { asPausedHolder, type FencedResource, type FenceWrite, fenceWrite } from "./fenced-resource.js";

/**
 * Longer than any outage of an etcd row (a cut lasts 2 × TTL, a leader is down 1 s): a write in flight when its writer
 * was SIGSTOPped, or while its path was cut, gets the server's answer rather than a client-side deadline.
 */
const WRITE_DEADLINE_MS = 15_000;

/** No answer from etcd: a gRPC failure (unavailable, deadline, leader change…) or a host's open circuit breaker. */
function unanswered(error: unknown): boolean {
  return error instanceof GRPCGenericError || (error instanceof Error && error.name === "BrokenCircuitError");
}

/**
 * A key on the lock's own etcd, written with `fencedTxn`: one transaction that puts the token only while the lock's
 * member key (created at the token's revision) still exists. It cannot live elsewhere, so it shares the row's faults:
 * the client takes the worker's lock URL (a network-cut worker's writes go through its proxies too), and a write that
 * got no answer counts as not accepted (`failure`). `seq` is the commit's store revision.
 */
export class EtcdFencedResource implements FencedResource {
  readonly #etcd: Etcd3;
  readonly #prefix: string;

  constructor(lockUrl: string) {
    const { hosts, prefix, dialTimeoutMs } = resolveEtcdLockOptions({ url: lockUrl });
    this.#etcd = new Etcd3({
      hosts: [...hosts],
      dialTimeout: dialTimeoutMs,
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: new Date(Date.now() + WRITE_DEADLINE_MS) }),
    });
    this.#prefix = prefix;
  }

  write(lock: Lock): Promise<FenceWrite> {
    const puts = { [`faults-resource/${lock.key}`]: String(lock.fencingToken) };
    return fenceWrite(async () => Number((await fencedTxn(this.#etcd, asPausedHolder(lock), { puts }, { prefix: this.#prefix })).revision), unanswered);
  }

  async close(): Promise<void> {
    this.#etcd.close();
  }
}
