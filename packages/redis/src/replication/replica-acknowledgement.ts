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

  /** Resolves once enough replicas hold `key`'s fresh hold; else releases it (`release`) and rejects. */
  async await(key: string, release: () => Promise<unknown>): Promise<void> {
    const { waitForReplicas, waitForReplicasTimeoutMs } = this.#settings;
    let acknowledged: number;
    try {
      acknowledged = Number(await this.#calls.bound("wait", this.#calls.connection.wait(waitForReplicas, waitForReplicasTimeoutMs), waitForReplicasTimeoutMs));
    } catch (error) {
      if (error instanceof Error && /unknown command|not allowed|NOPERM/i.test(error.message)) return this.#warnNoWait(error);
      await release().catch(() => undefined);
      throw this.#calls.failure("wait", error);
    }
    if (acknowledged >= waitForReplicas) return;
    await release().catch(() => undefined);
    throw new BackendUnavailableError(
      "redis",
      `only ${acknowledged} of ${waitForReplicas} replicas acknowledged the acquisition of "${key}" on ${this.#target} within ${waitForReplicasTimeoutMs} ms; it was released again`,
    );
  }

  #warnNoWait(error: Error): void {
    if (this.#warned) return;
    this.#warned = true;
    process.emitWarning(`${this.#target} refuses WAIT (${error.message}); distlock acquires without replica acknowledgement.`, {
      code: "DISTLOCK_REDIS_NO_WAIT",
    });
  }
}
