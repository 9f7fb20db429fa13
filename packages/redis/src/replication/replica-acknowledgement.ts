import { BackendUnavailableError } from "@distlock/core";
import type { RedisCalls } from "../connection/redis-calls.js";

/** How many replicas must acknowledge a fresh hold, and how long they may take. */
export interface ReplicaAcknowledgementSettings {
  readonly waitForReplicas: number;
  readonly waitForReplicasTimeoutMs: number;
}

/**
 * `WAIT` after a fresh hold, so that a failover cannot promote a replica that never saw it. A hold the replicas did not
 * acknowledge in time is released and the acquire fails; a server that refuses `WAIT` (a managed Redis, an ACL) is
 * warned about once and acquires go on without it.
 */
export class ReplicaAcknowledgement {
  readonly #calls: RedisCalls;
  readonly #settings: ReplicaAcknowledgementSettings;
  /** Where the client points, credentials masked, for messages. */
  readonly #target: string;
  #warned = false;

  constructor(calls: RedisCalls, settings: ReplicaAcknowledgementSettings, target: string) {
    this.#calls = calls;
    this.#settings = settings;
    this.#target = target;
  }

  /**
   * Resolves once enough replicas hold `key`'s fresh hold, written on the connection `connects` counted (see
   * `RedisCalls.connects`); else releases it (`release`) and rejects. A `WAIT` that ran on a later connection (a
   * reconnect came between, and ioredis sent or re-sent it there) counts that connection's writes, not the hold's: after
   * a failover it could count the new master's replicas for a hold only the old master had, so it does not count.
   */
  async await(key: string, connects: number, release: () => Promise<unknown>): Promise<void> {
    const { waitForReplicas, waitForReplicasTimeoutMs } = this.#settings;
    let acknowledged: number;
    try {
      acknowledged = Number(await this.#calls.bound("wait", this.#calls.connection.wait(waitForReplicas, waitForReplicasTimeoutMs), waitForReplicasTimeoutMs));
    } catch (error) {
      if (error instanceof Error && /unknown command|not allowed|NOPERM/i.test(error.message)) return this.#warnNoWait(error);
      await release().catch(() => undefined);
      throw this.#calls.failure("wait", error);
    }
    const reconnected = this.#calls.connects !== connects;
    if (!reconnected && acknowledged >= waitForReplicas) return;
    await release().catch(() => undefined);
    const why = reconnected
      ? `the connection to ${this.#target} was re-established between the acquisition of "${key}" and its WAIT, so no replica acknowledgement is known`
      : `only ${acknowledged} of ${waitForReplicas} replicas acknowledged the acquisition of "${key}" on ${this.#target} within ${waitForReplicasTimeoutMs} ms`;
    throw new BackendUnavailableError("redis", `${why}; it was released again`);
  }

  #warnNoWait(error: Error): void {
    if (this.#warned) return;
    this.#warned = true;
    process.emitWarning(`${this.#target} refuses WAIT (${error.message}); distlock acquires without replica acknowledgement.`, {
      code: "DISTLOCK_REDIS_NO_WAIT",
    });
  }
}
