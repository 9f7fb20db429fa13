import { type DriverAcquireRequest, type DriverGranted, type DriverRenewal, type DriverWait, onWaitAbort } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import type { CohortLines, LocalWaiter } from "../waiting/cohort-lines.js";
import { type CohortWaiter, ProcessCohort } from "./process-cohort.js";

/** What a release by a cohort's holder does: passed on here ("passed"), or the cohort's hold to give back to the server. */
export type CohortRelease = "passed" | ProcessCohort;

/** How the cohorts give a hold back to the server when none of this process came for it. */
export type GiveBack = (cohort: ProcessCohort) => void;

/**
 * The keys this process holds on the server for fresh owners (`DriverAcquireRequest.freshOwner`), each passed among its
 * acquirers without a server call at most `maxPasses` times in a row; then, or when nobody here wants it, the hold goes
 * back to the server, which hands it to the head of its line. See "Process cohorts" in the README. Shared with
 * `@distlock/redlock`, whose cohorts hold a key on a quorum and have no `CohortLines` (its waiters of this process stay
 * in the nodes' queues until the hold goes back).
 */
export class ProcessCohorts {
  readonly #maxPasses: number;
  readonly #lines: CohortLines | undefined;
  readonly #giveBack: GiveBack;
  readonly #cohorts = new Map<string, ProcessCohort>();

  constructor(maxPasses: number, lines: CohortLines | undefined, giveBack: GiveBack) {
    this.#maxPasses = maxPasses;
    this.#lines = lines;
    this.#giveBack = giveBack;
  }

  /**
   * A server grant of `request.key` to `request` (its lease started no earlier than `leaseFrom`; `queued` waiters were
   * left in the server's line; `reserved`: it reserved a token block): a fresh owner's starts a cohort. A grant by the
   * server proves an earlier cohort here lost the key.
   */
  granted(request: DriverAcquireRequest, granted: DriverGranted, leaseFrom: number, queued: number, reserved: boolean): void {
    if (request.freshOwner !== true || granted.holdCount !== 1 || granted.fencingToken === null) return;
    const earlier = this.#cohorts.get(request.key);
    // A pass here is already recorded; a token above the block is the server's own grant (the cohort lost the key).
    if (earlier?.holder === request.ownerSecret && (granted.fencingToken as bigint) <= earlier.lastToken) return;
    if (earlier !== undefined) this.#end(earlier);
    // Without a token block nothing can be passed: the hold is an ordinary one (the uncontended path makes no cohort).
    if (!reserved) return;
    const cohort = new ProcessCohort(request, granted, leaseFrom, queued > (this.#lines?.size(request.key) ?? 0));
    this.#cohorts.set(request.key, cohort);
  }

  /** The hold of `request.key` if it lingers here between holders and may go to `request`, taken at once; else undefined. */
  take(request: DriverAcquireRequest): DriverGranted | undefined {
    const cohort = this.#cohorts.get(request.key);
    if (cohort === undefined || cohort.holder !== undefined || !cohort.admits(request, 0, this.#maxPasses)) return undefined;
    return cohort.passTo(request.ownerSecret, cohort.nextGrant());
  }

  /**
   * Waits in the cohort's line for the hold (or takes it lingering); resolves undefined when the hold went back to the
   * server meanwhile. Undefined (no wait) when `request` cannot be passed the hold here.
   */
  wait(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted | undefined> | undefined {
    const taken = this.take(request);
    if (taken !== undefined) return Promise.resolve(taken);
    const cohort = this.#cohorts.get(request.key);
    if (cohort === undefined || cohort.holder === undefined || !cohort.admits(request, cohort.line.length, this.#maxPasses)) return undefined;
    return new Promise((resolve, reject) => {
      let settled = false;
      const waiter: CohortWaiter = {
        request,
        settle(granted) {
          settled = true;
          unsubscribe();
          resolve(granted);
        },
      };
      const unsubscribe = onWaitAbort(wait, (reason) => {
        if (settled) return;
        settled = true;
        const index = cohort.line.indexOf(waiter);
        if (index >= 0) cohort.line.splice(index, 1);
        reject(reason);
      });
      if (settled) return;
      cohort.line.push(waiter);
      if (cohort.expiry === undefined) this.#armExpiry(cohort);
    });
  }

  /**
   * A release by `ownerSecret` of `key`: undefined when it is no cohort's holder (the release goes to the server as is).
   * Within the bound, token block and lease the hold passes to the next acquirer here (the cohort's line, then this
   * process's waiters in the server's line), or lingers until the next turn of the event loop for the releasing
   * worker to come back, if others were queued on the server (so that the hold would not have been free anyway).
   * Otherwise the cohort ends and its hold goes back to the server.
   */
  release(key: string, ownerSecret: string): CohortRelease | undefined {
    const cohort = this.#cohorts.get(key);
    if (cohort === undefined || cohort.holder !== ownerSecret) return undefined;
    if (cohort.mayPass(0, this.#maxPasses)) {
      const next = cohort.line.shift();
      if (next !== undefined) {
        next.settle(cohort.passTo(next.request.ownerSecret, cohort.nextGrant()));
        return "passed";
      }
      if (this.#passToQueued(cohort, ownerSecret)) return "passed";
      if (cohort.othersQueued) {
        cohort.holder = undefined;
        setImmediate(() => this.#endLinger(cohort));
        return "passed";
      }
    }
    this.#end(cohort);
    return cohort;
  }

  /** The owner secret the server knows the hold of `key` by `ownerSecret` under: the cohort's, for its holder. */
  serverSecret(key: string, ownerSecret: string): string {
    const cohort = this.#cohorts.get(key);
    return cohort !== undefined && cohort.holder === ownerSecret ? cohort.serverSecret : ownerSecret;
  }

  /**
   * Renews `ownRenewals` through `send`: a cohort's holder's under the cohort's server secret; each answer moves (or, when
   * refused, ends) the cohort whose hold it renewed. Resolves `send`'s answers.
   */
  async renew(ownRenewals: readonly DriverRenewal[], send: (renewals: readonly DriverRenewal[]) => Promise<boolean[]>): Promise<boolean[]> {
    const renewals = this.#cohorts.size === 0 ? ownRenewals : ownRenewals.map((renewal) => this.#asServerRenewal(renewal));
    const sentAt = monotonicNow();
    const renewed = await send(renewals);
    for (const [i, { key, ownerSecret, ttlMs }] of renewals.entries()) this.renewed(key, ownerSecret, sentAt, ttlMs, renewed[i] === true);
    return renewed;
  }

  /** `renewal` as the server knows it: under the cohort's server secret when its owner holds a cohort's hold here. */
  #asServerRenewal(renewal: DriverRenewal): DriverRenewal {
    const ownerSecret = this.serverSecret(renewal.key, renewal.ownerSecret);
    return ownerSecret === renewal.ownerSecret ? renewal : { key: renewal.key, ownerSecret, ttlMs: renewal.ttlMs };
  }

  /** A renewal of the server's hold `serverSecret` of `key`, sent at `sentAt`, answered `held`. */
  renewed(key: string, serverSecret: string, sentAt: number, ttlMs: number, held: boolean): void {
    const cohort = this.#cohorts.get(key);
    if (cohort === undefined || cohort.serverSecret !== serverSecret) return;
    if (held) cohort.renewed(sentAt, ttlMs);
    else this.#end(cohort);
  }

  /** A give-back of `cohort` failed (it may not have run): its holder's retry gives it back again. */
  giveBackFailed(cohort: ProcessCohort): void {
    if (!this.#cohorts.has(cohort.key) && cohort.holder !== undefined) this.#cohorts.set(cohort.key, cohort);
  }

  /** The key was freed on the server by force: its cohort ends, its line goes to the server. */
  drop(key: string): void {
    const cohort = this.#cohorts.get(key);
    if (cohort !== undefined) this.#end(cohort);
  }

  /** Ends every cohort; returns those lingering between holders, whose holds must go back to the server. */
  endAll(): ProcessCohort[] {
    const cohorts = [...this.#cohorts.values()];
    for (const cohort of cohorts) this.#end(cohort);
    return cohorts.filter((cohort) => cohort.holder === undefined);
  }

  /** Passes the hold to the first fitting waiter of this process in the server's line; its stale place is dropped at the give-back. */
  #passToQueued(cohort: ProcessCohort, releasing: string): boolean {
    const lines = this.#lines;
    if (lines === undefined || lines.size(cohort.key) === 0) return false;
    const fits = (waiter: LocalWaiter) => waiter.freshOwner && waiter.ttlMs === cohort.ttlMs && waiter.ownerSecret !== releasing;
    for (let waiter = lines.takeFirst(cohort.key, fits); waiter !== undefined; waiter = lines.takeFirst(cohort.key, fits)) {
      const granted = cohort.nextGrant();
      const pass = { fencingToken: granted.fencingToken as bigint, ttlMs: granted.ttlMs, grantedAt: granted.grantedAt as number, keepsLease: true, queued: 0 };
      if (waiter.take(pass)) {
        cohort.passTo(waiter.ownerSecret, granted);
        cohort.leftLine.push(waiter.waiterId);
        return true;
      }
    }
    return false;
  }

  #endLinger(cohort: ProcessCohort): void {
    if (this.#cohorts.get(cohort.key) !== cohort || cohort.holder !== undefined) return;
    this.#end(cohort);
    this.#giveBack(cohort);
  }

  /** The cohort passes no more: forgotten here, its line sent to queue on the server. */
  #end(cohort: ProcessCohort): void {
    clearTimeout(cohort.expiry);
    if (this.#cohorts.get(cohort.key) === cohort) this.#cohorts.delete(cohort.key);
    closeLine(cohort);
  }

  /**
   * Armed once someone waits in the cohort (a timer per grant would cost every uncontended acquire): at the lease's
   * deadline (unless renewed) the line queues on the server; the holder keeps the record for its release.
   */
  #armExpiry(cohort: ProcessCohort): void {
    cohort.expiry = setTimeout(
      () => {
        if (this.#cohorts.get(cohort.key) !== cohort) return;
        if (monotonicNow() < cohort.deadline) return this.#armExpiry(cohort);
        closeLine(cohort);
      },
      Math.max(1, cohort.deadline - monotonicNow()),
    );
    cohort.expiry.unref();
  }
}

/** No more passes in `cohort`: its waiters go to queue on the server. */
function closeLine(cohort: ProcessCohort): void {
  cohort.closing = true;
  for (const waiter of cohort.line.splice(0)) waiter.settle(undefined);
}
