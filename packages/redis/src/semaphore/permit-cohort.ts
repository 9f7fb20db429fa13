import type { DriverGranted } from "@distlock/core/driver";

/** A one-permit grant of this process that its holders pass among this process's acquirers (see "Permit cohorts" in the README). */
export interface CohortGrant {
  readonly name: string;
  /** The owner secret the server holds the grant under: its current holder's (a pass moves it to the next holder's). */
  secret: string;
  /** The ttl it was granted with: only acquires asking the same are passed it. */
  readonly ttlMs: number;
  /** Passes in a row whose reply showed waiters of other processes in the server's line. */
  passes: number;
}

/** Someone a cohort's grant may be passed to: an acquire of this process waiting here, or in the server's line. */
export interface PassTarget {
  readonly ownerSecret: string;
  readonly ttlMs: number;
  /** Its place in the server's line, which the pass drops; "" for an acquire waiting here only. */
  readonly waiterId: string;
  /** Takes the grant passed to it; false when it has stopped waiting (the grant, now under its secret, is still to be placed). */
  receive(granted: DriverGranted, queued: number): boolean;
  /** No pass comes: it waits on the server (an acquire waiting here starts its server wait; one in the server's line waits on). */
  fallBack(): void;
}

/** An acquire of this process waiting in a cohort's local line, outside the server's line. */
export interface LocalPermitWaiter extends PassTarget {
  /** `monotonicNow()` by which it stops waiting here and goes to the server's line. */
  readonly until: number;
}

/**
 * The cohort of one semaphore in this process: the one-permit grants it holds that may be passed on, the acquires
 * waiting here for one of them, and what the last script reply said about the server's side.
 */
export class PermitCohort {
  readonly name: string;
  /** By the owner secret the server holds each under now. */
  readonly grants = new Map<string, CohortGrant>();
  readonly line: LocalPermitWaiter[] = [];
  /** The last reply said a new arrival would wait on the server (someone in line there, or no permit free). */
  contended = true;
  /** Sends waiters that waited here too long to the server; armed while the line is not empty. */
  patience: NodeJS.Timeout | undefined;

  constructor(name: string) {
    this.name = name;
  }

  /** Whether an acquire asking `ttlMs` may wait here: the server would make it wait, and a grant of that ttl may still pass. */
  admits(ttlMs: number, maxPasses: number): boolean {
    if (!this.contended) return false;
    for (const grant of this.grants.values()) if (grant.ttlMs === ttlMs && grant.passes < maxPasses) return true;
    return false;
  }

  /** Whether some grant here has `ttlMs`. */
  hasTtl(ttlMs: number): boolean {
    for (const grant of this.grants.values()) if (grant.ttlMs === ttlMs) return true;
    return false;
  }

  /** Takes the first waiter here asking `ttlMs` out of the line; undefined when none does. */
  takeWaiter(ttlMs: number): LocalPermitWaiter | undefined {
    const index = this.line.findIndex((waiter) => waiter.ttlMs === ttlMs);
    return index < 0 ? undefined : this.line.splice(index, 1)[0];
  }

  /** Takes out of the line, and returns, the waiters that `leaves` picks. */
  takeWaitersIf(leaves: (waiter: LocalPermitWaiter) => boolean): LocalPermitWaiter[] {
    const leaving: LocalPermitWaiter[] = [];
    const staying: LocalPermitWaiter[] = [];
    for (const waiter of this.line) (leaves(waiter) ? leaving : staying).push(waiter);
    if (leaving.length > 0) this.line.splice(0, this.line.length, ...staying);
    return leaving;
  }
}
