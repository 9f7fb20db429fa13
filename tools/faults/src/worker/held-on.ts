/** The hold whose critical section is running, and the wait the parent put into it (until "go-on" or "stop"). */
let runningHold: string | undefined;
let heldOn: { readonly until: Promise<void>; readonly goOn: () => void } | undefined;
/** Whether the running section has reached its wait point (`whileHeldOn`): a hold-on after that comes too late. */
let pastWaitPoint = true;

/** Marks `hold`'s critical section as running (or none): only a running one can be held on. */
export function running(hold: string | undefined): void {
  runningHold = hold;
  pastWaitPoint = hold === undefined;
}

/**
 * Keeps `hold`'s critical section, if it is the running one and has not reached its wait point, going until `goOn()`
 * (a long job under the lock); answers whether it did, i.e. whether the section now waits between its two steps.
 */
export function holdOn(hold: string): boolean {
  if (runningHold !== hold || heldOn !== undefined || pastWaitPoint) return false;
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  heldOn = { until, goOn: release };
  return true;
}

export function goOn(): void {
  heldOn?.goOn();
  heldOn = undefined;
}

/** The running section's wait point: resolves once it is no longer held on. */
export async function whileHeldOn(): Promise<void> {
  pastWaitPoint = true;
  await heldOn?.until;
}
