import type { DriverGranted } from "../driver/driver-attempt.js";

/** A request waiting in a memory store's FIFO line; the store calls `grant` when it takes it off the line. */
export interface LineWaiter<R> {
  readonly request: R;
  readonly grant: (granted: DriverGranted) => void;
}

/**
 * Puts a waiter for `request` at the end of `line` and resolves with its grant. When `signal` aborts first, the waiter
 * leaves the line, `left()` lets the store react (serve the next, drop an empty line), and it rejects with the reason.
 */
export function waitInLine<R>(line: LineWaiter<R>[], request: R, signal: AbortSignal, left: () => void): Promise<DriverGranted> {
  return new Promise((resolve, reject) => {
    const waiter: LineWaiter<R> = {
      request,
      grant: (granted) => {
        signal.removeEventListener("abort", onAbort);
        resolve(granted);
      },
    };
    const onAbort = () => {
      line.splice(line.indexOf(waiter), 1);
      left();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    line.push(waiter);
  });
}
