/** How a check came out: `fail` can lose a lock, `warn` weakens a guarantee or hides a risk, `ok` is as it should be. */
export type CheckStatus = "ok" | "warn" | "fail";

/** One row of a doctor report. Never carries a credential or an owner secret. */
export interface CheckResult {
  /** Stable id of the check, e.g. "redis.eviction" or "self-test.exclusion". */
  readonly check: string;
  /** The server or file the check looked at (host:port, a path), when there are several or it helps. */
  readonly target?: string;
  /** How it came out. */
  readonly status: CheckStatus;
  /** What the check found: numbers and settings. */
  readonly found: string;
  /** What to change; absent when the status is `ok`. */
  readonly change?: string;
}

/** What `checkLockBackend` resolves with. */
export interface DoctorReport {
  /** The backend's registered name, e.g. "redis". */
  readonly backend: string;
  /** The URL checked, its password masked. */
  readonly url: string;
  /** False when the backend could not be reached at all (then the checks say why). */
  readonly reachable: boolean;
  /** One row per check, in the order they ran: the backend's own checks, then the self-test. */
  readonly checks: readonly CheckResult[];
  /** How many checks came out each way. */
  readonly summary: Readonly<Record<CheckStatus, number>>;
}

/** Collects the rows of one report in order. */
export class CheckList {
  readonly #results: CheckResult[] = [];

  add(check: string, status: CheckStatus, found: string, change?: string, target?: string): void {
    this.#results.push({ check, ...(target === undefined ? {} : { target }), status, found, ...(status === "ok" || change === undefined ? {} : { change }) });
  }

  ok(check: string, found: string, target?: string): void {
    this.add(check, "ok", found, undefined, target);
  }

  get results(): readonly CheckResult[] {
    return this.#results;
  }
}

/** A report from its rows. */
export function doctorReport(backend: string, url: string, reachable: boolean, checks: readonly CheckResult[]): DoctorReport {
  const summary = { ok: 0, warn: 0, fail: 0 };
  for (const row of checks) summary[row.status] += 1;
  return { backend, url, reachable, checks, summary };
}
