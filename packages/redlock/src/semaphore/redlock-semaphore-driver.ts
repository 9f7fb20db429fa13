import type { SemaphoreState } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRenewal, DriverWait, SemaphoreDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { SEMAPHORE_RENEW_SCRIPT } from "@distlock/redis/internal";
import type { QuorumContext } from "../operations/quorum-context.js";
import { QuorumRenewal } from "../operations/quorum-renewal.js";
import { SemaphoreAcquire, semaphoreChannel } from "./semaphore-acquire.js";
import { SemaphoreInspection } from "./semaphore-inspection.js";
import { semaphoreQuorum } from "./semaphore-quorum.js";
import { SemaphoreRelease } from "./semaphore-release.js";

/**
 * Counting semaphores (and so read-write locks) on Redlock: a grant holds while `semaphoreQuorum` nodes hold it and
 * its validity is positive, as a lock holds on a majority. Each operation is its own module; this class wires them and
 * remembers each name's permit count (one per name in a provider), which decides its quorum.
 */
export class RedlockSemaphoreDriver implements SemaphoreDriver {
  readonly #context: QuorumContext;
  readonly #acquire: SemaphoreAcquire;
  readonly #renewal: QuorumRenewal;
  readonly #release: SemaphoreRelease;
  readonly #inspection: SemaphoreInspection;
  readonly #permitsOf = new Map<string, number>();

  constructor(context: QuorumContext) {
    this.#context = context;
    this.#acquire = new SemaphoreAcquire(context);
    this.#release = new SemaphoreRelease(context);
    this.#inspection = new SemaphoreInspection(context);
    this.#renewal = new QuorumRenewal(context, {
      script: SEMAPHORE_RENEW_SCRIPT,
      keyOf: (name) => context.layout.tag(name),
      quorumOf: (renewal: DriverRenewal) => this.#quorumOf(renewal.key),
    });
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    this.#permitsOf.set(request.key, request.permits);
    return this.#acquire.tryAcquire(request);
  }

  acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    this.#permitsOf.set(request.key, request.permits);
    return this.#acquire.acquire(request, wait);
  }

  isWatching(name: string): boolean {
    const channel = semaphoreChannel(this.#context.layout.tag(name));
    return this.#context.nodes.nodes.some((node) => node.isListening(channel));
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#renewal.renew(renewals);
  }

  release(name: string, ownerSecret: string): Promise<boolean> {
    return this.#release.release(name, ownerSecret, this.#quorumOf(name));
  }

  inspect(name: string): Promise<SemaphoreState | null> {
    return this.#inspection.inspect(name);
  }

  /** The quorum of a semaphore this provider took permits of; every node for one it never did (nothing to lose by asking more). */
  #quorumOf(name: string): number {
    const permits = this.#permitsOf.get(name);
    const total = this.#context.nodes.nodes.length;
    return permits === undefined ? total : semaphoreQuorum(total, name, permits);
  }
}
