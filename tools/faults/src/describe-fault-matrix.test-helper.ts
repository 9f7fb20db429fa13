import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FenceServers } from "./fence/fence-servers.js";
import { BACKEND_FAULTS, type BackendFixture, type BackendName, MULTI_KEY_FAULTS, SEMAPHORE_FAULTS, startBackend } from "./matrix/backend-fixture.js";
import type { FaultName } from "./matrix/fault-name.js";
import { DEFAULT_ROW_SETTINGS } from "./runner/row-settings.js";
import { runRow } from "./runner/run-row.js";

/**
 * The multi-key faults of the short form: the pause, which found the set's late signal (finding 9) and a waiter's stale
 * hand-off (finding 8); both faults run in the long form (`--primitive multi-key`). Measured on 2026-11-28 (`npx
 * vitest run tools/faults`, 2 vCPUs shared): 56.6 s and 61.8 s without multi-key rows, 73.7 s with
 * `holder-sigstop` on the three backends, 76.5 s with both faults.
 */
const SHORT_FORM_MULTI_KEY_FAULTS: readonly FaultName[] = ["holder-sigstop"];

/** One row injects its faults and waits out leases and recovery: longer than the suite's default bound. */
const ROW_TIMEOUT_MS = 180_000;

/** Options of {@link describeFaultMatrix}. */
export interface ShortFormOptions {
  /** The faults to run for a backend, where not all that apply (`BACKEND_FAULTS`): to keep the CI run short. */
  readonly faults?: Partial<Record<BackendName, readonly FaultName[]>>;
}

/**
 * Registers the short form of the matrix for these backends: one test per row, each on the backend's own servers; the
 * fenced resources' servers are started on first use and shared by the file's rows. A backend listed in
 * `SEMAPHORE_FAULTS` also runs its semaphore rows, one in `MULTI_KEY_FAULTS` its multi-key rows, on the same servers.
 */
export function describeFaultMatrix(backends: readonly BackendName[], options: ShortFormOptions = {}): void {
  const fences = new FenceServers();
  afterAll(() => fences.close());

  for (const backend of backends) {
    describe(`${backend} under faults (short form)`, { timeout: ROW_TIMEOUT_MS }, () => {
      let fixture: BackendFixture;
      beforeAll(async () => {
        fixture = await startBackend(backend);
      });
      afterAll(() => fixture?.close());

      for (const fault of options.faults?.[backend] ?? BACKEND_FAULTS[backend]) {
        // `violations` leaves out the overlaps of a backend that leaves them to fencing (Redis Sentinel without
        // waitForReplicas), as long as fencing caught them; they are in `fencedOverlaps`.
        it(`${fault}: no safety or liveness violation, and the key is acquired again after the fault`, async () => {
          const fence = await fences.get(fixture.fence);
          const row = await runRow(fixture, fault, DEFAULT_ROW_SETTINGS, { primitive: "lock", fence });
          const found = { violations: row.violations, workerFailures: row.workerFailures };
          expect(found, JSON.stringify(found, null, 2)).toEqual({ violations: [], workerFailures: [] });
          expect(row.faultsInjected).toBe(DEFAULT_ROW_SETTINGS.injections);
          expect(row.recoveryMs).not.toBeNull();
          expect(row.writesAccepted).toBeGreaterThan(0);
          // The paused holder writes again after a later holder did: the resource itself refuses it. Not every stale write:
          // a holder starved past its deadline on a loaded machine, the key not taken meanwhile, writes harmlessly.
          if (fault === "holder-sigstop")
            expect({ rejected: row.writesRejected > 0, pausedStaleAccepted: row.pausedStaleWritesAccepted }).toEqual({
              rejected: true,
              pausedStaleAccepted: 0,
            });
        });
      }

      const { semaphorePermits: permits } = DEFAULT_ROW_SETTINGS;
      for (const fault of SEMAPHORE_FAULTS[backend] ?? []) {
        it(`semaphore of ${permits} permits, ${fault}: never more than ${permits} held at once, no other violation, and permits granted again after the fault`, async () => {
          const row = await runRow(fixture, fault, DEFAULT_ROW_SETTINGS, { primitive: "semaphore" });
          const found = { violations: row.violations, workerFailures: row.workerFailures };
          expect(found, JSON.stringify(found, null, 2)).toEqual({ violations: [], workerFailures: [] });
          expect(row.faultsInjected).toBe(DEFAULT_ROW_SETTINGS.injections);
          expect(row.recoveryMs).not.toBeNull();
          // Holders shared the semaphore (a row with one holder at a time would prove nothing about its limit). Not
          // "filled": under CI load a short row sometimes peaks at 2 of 3 (the long form fills it, docs/fault-matrix.md).
          expect(row.semaphore?.peakHeld).toBeGreaterThanOrEqual(2);
          // The paused holder's permits ran out and went to others: it learnt that it lost them.
          if (fault === "holder-sigstop") expect(row.semaphore?.holdsLost).toBeGreaterThan(0);
        });
      }

      for (const fault of (MULTI_KEY_FAULTS[backend] ?? []).filter((each) => SHORT_FORM_MULTI_KEY_FAULTS.includes(each))) {
        it(`multi-key sets, ${fault}: no violation (a key held twice unfenced, one held past a dead holder's lease, a starved waiter), no stuck locker, and sets taken again after the fault`, async () => {
          const fence = await fences.get(fixture.fence);
          const row = await runRow(fixture, fault, DEFAULT_ROW_SETTINGS, { primitive: "multi-key", fence });
          const found = { violations: row.violations, workerFailures: row.workerFailures, stuckLockers: row.multiKey?.stuckLockers };
          expect(found, JSON.stringify(found, null, 2)).toEqual({ violations: [], workerFailures: [], stuckLockers: 0 });
          expect(row.faultsInjected).toBe(DEFAULT_ROW_SETTINGS.injections);
          expect(row.recoveryMs).not.toBeNull();
          // The probe saw the killed holder's keys on the server and then saw them freed.
          if (fault === "holder-sigkill") expect(row.multiKey?.longestHeldAfterDeathMs).not.toBeNull();
          // The paused holder writes again after later holders of each of its keys did: the resources refuse it. A write
          // past its deadline on a key nobody took meanwhile is accepted, and harmless (the long run of 03:10 had 4 on
          // PostgreSQL); a stale write while another holder had the key is an overlap, among the violations above.
          if (fault === "holder-sigstop") expect(row.writesRejected).toBeGreaterThan(0);
        });
      }
    });
  }
}
