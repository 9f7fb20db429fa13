/**
 * DynamoDB's refusals that say a request was not applied, because of the table's or the account's capacity: a retry
 * cannot apply a write twice, unlike a retry after a timeout or a 5xx, whose first try may have taken effect.
 */
const THROTTLED = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]);

const FIRST_DELAY_MS = 25;
const MAX_DELAY_MS = 1_000;

/**
 * Runs `call` again after a throttling refusal, with jittered backoff, until it answers otherwise or the call's
 * deadline (`dueAt`, on `performance.now()`) passes.
 */
export async function retryThrottled<T>(call: () => Promise<T>, dueAt: number): Promise<T> {
  for (let delayMs = FIRST_DELAY_MS; ; delayMs = Math.min(delayMs * 2, MAX_DELAY_MS)) {
    try {
      return await call();
    } catch (error) {
      const leftMs = dueAt - performance.now();
      if (!THROTTLED.has((error as { name?: unknown }).name as string) || leftMs <= 0) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs * (0.5 + Math.random()), leftMs)));
      if (performance.now() >= dueAt) throw error;
    }
  }
}
