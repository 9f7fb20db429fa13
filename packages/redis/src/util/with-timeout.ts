/** `promise`, or a rejection with `onTimeout()` once `ms` have passed; `onLate` sees a result that arrived too late. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(onTimeout());
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
