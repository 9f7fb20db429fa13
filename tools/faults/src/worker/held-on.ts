/** The hold whose critical section is running, and the wait the parent put into it (until "go-on" or "stop"). */
let runningHold: string | undefined;
let heldOn: { readonly until: Promise<void>; readonly goOn: () => void } | undefined;

/** Marks `hold`'s critical section as running (or none): only a running one can be held on. */
export function running(hold: string | undefined): void {
  runningHold = hold;
}

/** Keeps `hold`'s critical section, if it is the running one, going until `goOn()`: a long job under the lock. */
export function holdOn(hold: string): void {
  if (runningHold !== hold || heldOn !== undefined) return;
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  heldOn = { until, goOn: release };
}

export function goOn(): void {
  heldOn?.goOn();
  heldOn = undefined;
}

/** Resolves once the running critical section is no longer held on. */
export async function whileHeldOn(): Promise<void> {
  await heldOn?.until;
}
