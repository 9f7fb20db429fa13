import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import { conservativeDeadline, monotonicNow } from "@distlock/core/internal";
import { TOKEN_BLOCK } from "../scripts/lua-functions.js";

const BLOCK = BigInt(TOKEN_BLOCK);

/** An acquire of this process waiting for the cohort's hold, outside the server's line. */
export interface CohortWaiter {
  readonly request: DriverAcquireRequest;
  /** Ends the wait: with the hold, or undefined to queue on the server instead. */
  settle(granted: DriverGranted | undefined): void;
}

/**
 * One key held on the server by this process and passed among its own acquirers without a server call (Dice, Marathe
 * and Shavit, "Lock Cohorting"). The server's hold carries the owner secret of its first holder, which no other acquire
 * ever brings; each local holder gets the next token of the block the grant reserved.
 */
export class ProcessCohort {
  readonly key: string;
  /** The owner secret of the server's hold. */
  readonly serverSecret: string;
  /** The ttl the hold was granted with: only acquires asking the same are passed it. */
  readonly ttlMs: number;
  /** The highest token of the block the server reserved for this hold. */
  readonly lastReserved: bigint;
  /** The last token handed out here (the grant's own at first). */
  lastToken: bigint;
  /** The server's lease started no earlier than this and lasts `leaseTtlMs` (from the grant, then the latest renewal). */
  leaseFrom: number;
  leaseTtlMs: number;
  /** The local holder's owner secret; undefined while the hold lingers between holders. */
  holder: string | undefined;
  /** Passes made without a server call since the server's grant. */
  passes = 0;
  /** Waiters of other processes were queued on the server when it granted the hold. */
  readonly othersQueued: boolean;
  /** True once the hold goes back to the server: no more passes. */
  closing = false;
  /** Ids of this process's waiters in the server's line that were passed the hold: their places there are stale. */
  readonly leftLine: string[] = [];
  readonly line: CohortWaiter[] = [];
  /** Kicks the line to the server once the lease's deadline passes without a renewal. */
  expiry: NodeJS.Timeout | undefined;

  /** Made only for a grant that reserved a token block (a grant through the line). */
  constructor(request: DriverAcquireRequest, granted: DriverGranted, leaseFrom: number, othersQueued: boolean) {
    this.key = request.key;
    this.serverSecret = request.ownerSecret;
    this.holder = request.ownerSecret;
    this.ttlMs = request.ttlMs;
    this.lastToken = granted.fencingToken as bigint;
    this.lastReserved = this.lastToken + BLOCK;
    this.leaseFrom = leaseFrom;
    this.leaseTtlMs = granted.ttlMs;
    this.othersQueued = othersQueued;
  }

  /** The local deadline of the server's lease, drift subtracted (as core computes a hold's). */
  get deadline(): number {
    return conservativeDeadline(this.leaseFrom, this.leaseTtlMs);
  }

  /** Whether `request` may be passed the hold after `ahead` others: a fresh owner asking the same ttl, and `mayPass`. */
  admits(request: DriverAcquireRequest, ahead: number, maxPasses: number): boolean {
    return request.freshOwner === true && request.ttlMs === this.ttlMs && this.mayPass(ahead, maxPasses);
  }

  /** Whether a pass after `ahead` others stays within the pass bound, the token block and the lease's deadline. */
  mayPass(ahead: number, maxPasses: number): boolean {
    return !this.closing && this.passes + ahead < maxPasses && this.lastToken + BigInt(ahead) < this.lastReserved && monotonicNow() < this.deadline;
  }

  /** The hold as the next local holder gets it: the next token, on the lease that runs on. */
  nextGrant(): DriverGranted {
    return { acquired: true, fencingToken: this.lastToken + 1n, holdCount: 1, ttlMs: this.leaseTtlMs, grantedAt: this.leaseFrom };
  }

  /** Records the pass of `granted` (from `nextGrant`) to `ownerSecret`. */
  passTo(ownerSecret: string, granted: DriverGranted): DriverGranted {
    this.passes += 1;
    this.lastToken = granted.fencingToken as bigint;
    this.holder = ownerSecret;
    return granted;
  }

  /** A renewal of the server's hold that started at `sentAt` for `ttlMs` succeeded; the lease only moves forward. */
  renewed(sentAt: number, ttlMs: number): void {
    if (conservativeDeadline(sentAt, ttlMs) <= this.deadline) return;
    this.leaseFrom = sentAt;
    this.leaseTtlMs = ttlMs;
  }
}
