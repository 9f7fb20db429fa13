import { type DriverGranted, type DriverPermitRequest, type DriverWait, onWaitAbort } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import type { CohortLines, LocalWaiter } from "../waiting/cohort-lines.js";
import { queueRefreshMs } from "../waiting/wait-in-server-line.js";
import { type CohortGrant, type LocalPermitWaiter, type PassTarget, PermitCohort } from "./permit-cohort.js";

/**
 * The permit cohorts of one driver (after Dice, Marathe and Shavit, "Lock Cohorting"): per semaphore, the one-permit
 * grants this process holds that its holders pass to the next acquirer here, each pass one server call (the pass
 * script), at most `maxPasses` times in a row while waiters of other processes are queued; then the grant goes back
 * to the server's line. Decisions only: the driver makes the calls. See "Permit cohorts" in the README.
 */
export class PermitCohorts {
  readonly #maxPasses: number;
  readonly #waiterLeaseMs: number;
  /** This process's one-permit waiters in the servers' lines (they join it when refused). */
  readonly #serverLines: CohortLines;
  readonly #cohorts = new Map<string, PermitCohort>();

  /** `waiterLeaseMs`: the server line's, which sets how long an acquire waits here at most (see `wait`). */
  constructor(maxPasses: number, waiterLeaseMs: number, serverLines: CohortLines) {
    this.#maxPasses = maxPasses;
    this.#waiterLeaseMs = waiterLeaseMs;
    this.#serverLines = serverLines;
  }

  /** True while this process holds grants of `name` it may pass on. */
  has(name: string): boolean {
    return this.#cohorts.has(name);
  }

  /**
   * A one-permit grant to `ownerSecret` through the server's line, which left `queued` waiters there: with waiters left
   * it joins the semaphore's cohort (a grant with nobody left waiting is an ordinary one).
   */
  granted(name: string, ownerSecret: string, ttlMs: number, queued: number): void {
    if (queued === 0) return;
    let cohort = this.#cohorts.get(name);
    if (cohort === undefined) {
      cohort = new PermitCohort(name);
      this.#cohorts.set(name, cohort);
    }
    if (cohort.grants.has(ownerSecret)) return;
    cohort.grants.set(ownerSecret, { name, secret: ownerSecret, ttlMs, passes: 0 });
    cohort.contended = true;
  }

  /** The cohort grant the server holds under `ownerSecret`, if it is one. */
  grantOf(name: string, ownerSecret: string): CohortGrant | undefined {
    return this.#cohorts.get(name)?.grants.get(ownerSecret);
  }

  /**
   * Waits in the semaphore's local line for a pass; resolves undefined when the acquire is to wait on the server
   * instead: the cohort ended, or it waited as long as a waiter in the server's line waits between refreshes
   * (`queueRefreshMs`), which bounds what a stale "contended" costs (a permit may have been freed since the last
   * reply); in the server's line a pass can still reach it. Undefined (no wait) when no grant here could be passed to
   * `request`, or the last reply said the server would not make it wait.
   */
  wait(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted | undefined> | undefined {
    if (request.count !== 1) return undefined;
    const cohort = this.#cohorts.get(request.key);
    if (cohort === undefined || !cohort.admits(request.ttlMs, this.#maxPasses)) return undefined;
    return new Promise((resolve, reject) => {
      let abortedBy: { reason: unknown } | undefined;
      const end = (granted: DriverGranted | undefined): boolean => {
        unsubscribe();
        if (abortedBy !== undefined) reject(abortedBy.reason);
        else resolve(granted);
        return abortedBy === undefined;
      };
      const waiter: LocalPermitWaiter = {
        ownerSecret: request.ownerSecret,
        ttlMs: request.ttlMs,
        waiterId: "",
        until: monotonicNow() + queueRefreshMs(this.#waiterLeaseMs, request.ttlMs),
        receive: (granted) => end(granted),
        fallBack: () => void end(undefined),
      };
      const unsubscribe = onWaitAbort(wait, (reason) => {
        abortedBy = { reason };
        const index = cohort.line.indexOf(waiter);
        // Taken out for a pass already: the pass's answer ends the wait.
        if (index < 0) return;
        cohort.line.splice(index, 1);
        reject(reason);
      });
      if (abortedBy !== undefined) return reject(abortedBy.reason);
      cohort.line.push(waiter);
      if (cohort.patience === undefined) this.#armPatience(cohort);
    });
  }

  /** Who `grant`'s holder, releasing, passes it to: this process's first fitting waiter in the server's line, else here; undefined to give it back. */
  nextTarget(grant: CohortGrant): PassTarget | undefined {
    const cohort = this.#cohorts.get(grant.name);
    if (cohort === undefined || cohort.grants.get(grant.secret) !== grant || grant.passes >= this.#maxPasses) return undefined;
    const queued = this.#serverLines.takeFirst(grant.name, (waiter) => waiter.ttlMs === grant.ttlMs && waiter.ownerSecret !== grant.secret);
    return queued === undefined ? cohort.takeWaiter(grant.ttlMs) : inServerLine(queued);
  }

  /** The pass script moved `grant` to `target`; its reply showed `queued` waiters in the server's line and `free` permits. */
  passed(grant: CohortGrant, target: PassTarget, queued: number, free: number): void {
    const cohort = this.#cohorts.get(grant.name);
    grant.passes = queued > this.#serverLines.size(grant.name) ? grant.passes + 1 : 0;
    if (cohort === undefined || cohort.grants.get(grant.secret) !== grant) {
      grant.secret = target.ownerSecret;
      return;
    }
    cohort.grants.delete(grant.secret);
    grant.secret = target.ownerSecret;
    cohort.grants.set(grant.secret, grant);
    cohort.contended = queued > 0 || free === 0;
  }

  /** `grant` goes back to the server (or was lost): its waiters here that no other grant could serve go to the server's line. */
  end(grant: CohortGrant): void {
    const cohort = this.#cohorts.get(grant.name);
    if (cohort === undefined || cohort.grants.get(grant.secret) !== grant) return;
    cohort.grants.delete(grant.secret);
    this.#sendToServer(cohort, (waiter) => !cohort.hasTtl(waiter.ttlMs));
  }

  /** A waiter for several permits is first in the server's line: `grant` goes back, and every waiter here queues behind it. */
  yieldTo(grant: CohortGrant): void {
    const cohort = this.#cohorts.get(grant.name);
    this.end(grant);
    if (cohort === undefined) return;
    cohort.contended = false;
    this.#sendToServer(cohort, () => true);
  }

  /** The server refused to renew the grant held under `ownerSecret`: if it is a cohort's, it ends. */
  lost(name: string, ownerSecret: string): void {
    const grant = this.grantOf(name, ownerSecret);
    if (grant !== undefined) this.end(grant);
  }

  /** Sends the waiters `leaves` picks to the server's line; forgets a cohort with no grants left. */
  #sendToServer(cohort: PermitCohort, leaves: (waiter: LocalPermitWaiter) => boolean): void {
    if (cohort.grants.size === 0 && this.#cohorts.get(cohort.name) === cohort) {
      this.#cohorts.delete(cohort.name);
      clearTimeout(cohort.patience);
      cohort.patience = undefined;
    }
    for (const waiter of cohort.takeWaitersIf(cohort.grants.size === 0 ? () => true : leaves)) waiter.fallBack();
  }

  /** Armed while the line is not empty: at the soonest end of a waiter's patience, sends those whose patience ended to the server. */
  #armPatience(cohort: PermitCohort): void {
    if (cohort.line.length === 0 || this.#cohorts.get(cohort.name) !== cohort) {
      cohort.patience = undefined;
      return;
    }
    const soonest = Math.min(...cohort.line.map((waiter) => waiter.until));
    cohort.patience = setTimeout(
      () => {
        const now = monotonicNow();
        for (const waiter of cohort.takeWaitersIf((w) => w.until <= now)) waiter.fallBack();
        this.#armPatience(cohort);
      },
      Math.max(1, soonest - monotonicNow()),
    );
    cohort.patience.unref();
  }
}

/** A waiter of this process in the server's line as a pass target: the pass drops its place there and wakes its wait. */
function inServerLine(waiter: LocalWaiter): PassTarget {
  return {
    ownerSecret: waiter.ownerSecret,
    ttlMs: waiter.ttlMs,
    waiterId: waiter.waiterId,
    receive: (granted, queued) =>
      waiter.take({ fencingToken: granted.fencingToken as bigint, ttlMs: granted.ttlMs, grantedAt: granted.grantedAt as number, keepsLease: true, queued }),
    // It still waits in the server's line.
    fallBack: () => undefined,
  };
}
