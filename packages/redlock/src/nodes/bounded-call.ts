/** `call`'s result, or a rejection with "no answer within <ms> ms" once `timeoutMs` have passed. */
export function boundedCall<T>(call: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([call, expired]).finally(() => clearTimeout(timer));
}
