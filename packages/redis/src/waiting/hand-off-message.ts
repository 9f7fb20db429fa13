/** What the queue scripts publish when they hand a free lock to a waiter: "<waiter id> <fencing token> <ttl ms> <waiters left>". */
export interface HandOffMessage {
  readonly waiterId: string;
  readonly fencingToken: bigint;
  readonly ttlMs: number;
  /** How many entries were left in the key's queue (0 in the three-field form of clients before process cohorts). */
  readonly queued: number;
}

const FORMAT = /^(\S+) (\d+) (\d+)(?: (\d+))?$/;

/** The hand-off in `message`, or undefined for anything else on the channel. */
export function parseHandOffMessage(message: string): HandOffMessage | undefined {
  const match = FORMAT.exec(message);
  if (match === null) return undefined;
  return { waiterId: match[1] as string, fencingToken: BigInt(match[2] as string), ttlMs: Number(match[3]), queued: Number(match[4] ?? 0) };
}
