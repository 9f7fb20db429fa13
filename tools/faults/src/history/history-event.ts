/**
 * One entry of a run's history. Times (`at`, `validUntil`) are milliseconds on CLOCK_MONOTONIC (`machineNow()`), shared
 * by every process on the machine. `hold` names one acquisition (`<worker>#<n>`): a lock's, or a semaphore's grant of
 * `count` permits; tokens are decimal strings (bigints do not cross IPC as JSON).
 */
export type HistoryEvent =
  | {
      readonly type: "acquire-start";
      readonly worker: string;
      readonly at: number;
      /** The keys of a multi-key set asked for, in the order asked; absent for the row's one key. */
      readonly keys?: readonly string[];
    }
  | { readonly type: "acquire-failed"; readonly worker: string; readonly at: number; readonly code: string }
  | {
      readonly type: "acquired";
      readonly worker: string;
      readonly at: number;
      readonly hold: string;
      readonly token: string;
      readonly validUntil: number;
      /** Permits of a semaphore's grant; absent for a lock (one holder). */
      readonly count?: number;
      /** The key of a multi-key set this token is for (one `acquired` per key of the set); absent for the row's one key. */
      readonly key?: string;
    }
  | { readonly type: "valid"; readonly worker: string; readonly at: number; readonly hold: string; readonly validUntil: number }
  | { readonly type: "cs-start"; readonly worker: string; readonly at: number; readonly hold: string }
  | {
      readonly type: "write";
      readonly worker: string;
      /** When the write was sent; `signalAborted` and `validUntil` are read at that moment. */
      readonly at: number;
      readonly hold: string;
      readonly token: string;
      readonly signalAborted: boolean;
      readonly validUntil: number;
      readonly accepted: boolean;
      /** Orders the resource's accepted writes (0 when not accepted); see `FenceWrite`. */
      readonly seq: number;
      /** The write got no answer (server down or cut off), so it is not counted as accepted; the error's class. */
      readonly failure?: string;
      /** The key of a multi-key set written (its own resource, with its own token); absent for the row's one key. */
      readonly key?: string;
    }
  /**
   * A semaphore holder's work under its permits (a call the semaphore rations). It acts only while its permit's signal
   * has not aborted: nothing fences a semaphore's holders, so the signal is what must stop a stale one.
   */
  | { readonly type: "act"; readonly worker: string; readonly at: number; readonly hold: string; readonly token: string; readonly validUntil: number }
  | { readonly type: "cs-end"; readonly worker: string; readonly at: number; readonly hold: string; readonly validUntil: number }
  /** The answer to the parent's "hold-on": `parked`, the section waits between its two steps until "go-on". */
  | { readonly type: "held-on"; readonly worker: string; readonly at: number; readonly hold: string; readonly parked: boolean }
  | { readonly type: "released"; readonly worker: string; readonly at: number; readonly hold: string }
  | { readonly type: "release-failed"; readonly worker: string; readonly at: number; readonly hold: string; readonly code: string }
  | { readonly type: "lost"; readonly worker: string; readonly at: number; readonly hold: string; readonly code: string }
  | { readonly type: "worker-stopped"; readonly worker: string; readonly at: number }
  | { readonly type: "killed"; readonly worker: string; readonly at: number }
  | DeadHolderKeysEvent
  | FaultEvent;

/**
 * The runner's probe of the holds a killed process had on the server when it died (`inspect` naming its holder label,
 * with the hold's token), from the kill (`at`) on: when the server first no longer showed each of them, or `null` if it
 * still did when the probe gave up.
 */
export interface DeadHolderKeysEvent {
  readonly type: "dead-holder-keys";
  readonly at: number;
  /** The killed process. */
  readonly worker: string;
  readonly keys: readonly { readonly key: string; readonly freedAt: number | null }[];
}

/**
 * Injected by the runner. `outage` faults make the backend unavailable to `scope` (a worker, or everyone). `targetHold` names
 * the hold a fault was aimed at (the one a pause stopped inside its critical section).
 */
export type FaultEvent =
  | { readonly type: "fault"; readonly at: number; readonly fault: string; readonly outage: boolean; readonly scope: string; readonly targetHold?: string }
  | { readonly type: "fault-end"; readonly at: number; readonly fault: string; readonly outage: boolean; readonly scope: string };

/** Names the lockers of one worker process: `w3`, then `w3/1`, `w3/2`, … (each a loop on the process's one provider). */
export function lockerName(workerProcess: string, index: number): string {
  return index === 0 ? workerProcess : `${workerProcess}/${index}`;
}

/** The locker a hold belongs to: hold ids are `<locker>#<n>`. */
export function lockerOf(hold: string): string {
  return hold.slice(0, hold.indexOf("#"));
}

/** The worker process a locker runs in: what a kill, a pause or a network cut hits. */
export function processOf(locker: string): string {
  const slash = locker.indexOf("/");
  return slash < 0 ? locker : locker.slice(0, slash);
}

/** `scope` of a fault that affects every worker. */
export const EVERYONE = "*";

/**
 * Where this process's `performance.now()` zero lies on CLOCK_MONOTONIC (ms), the one clock every process of the machine
 * shares. `performance.timeOrigin` is not that: it is a wall-clock reading taken at start-up, and a worker descheduled
 * there, or a slewed wall clock, puts its whole history milliseconds off the others'. Read between two hrtime samples;
 * the closest pair of five wins.
 */
const ZERO_ON_MACHINE_CLOCK = (() => {
  let spread = Number.POSITIVE_INFINITY;
  let zero = 0;
  for (let i = 0; i < 5; i++) {
    const before = process.hrtime.bigint();
    const now = performance.now();
    const after = process.hrtime.bigint();
    if (Number(after - before) < spread) {
      spread = Number(after - before);
      zero = (Number(before) + Number(after)) / 2e6 - now;
    }
  }
  return zero;
})();

/** Now, on the clock every history event uses (CLOCK_MONOTONIC in ms, the same in every process of the machine). */
export function machineNow(): number {
  return ZERO_ON_MACHINE_CLOCK + performance.now();
}

/** A `performance.now()` deadline of this process on the history's clock. */
export function toMachineTime(monotonic: number): number {
  return ZERO_ON_MACHINE_CLOCK + monotonic;
}
