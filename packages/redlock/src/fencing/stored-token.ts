/** Marks a token in a node's lock hash as the quorum's confirmed token rather than the node's own counter value. */
const CONFIRMED_MARK = "=";

/** The `token` field of one node's lock hash. */
export interface StoredToken {
  readonly value: bigint;
  /** True once the quorum's token was written there; false for the node's own counter value from the acquire script. */
  readonly confirmed: boolean;
}

export function parseStoredToken(raw: unknown): StoredToken {
  const text = String(raw);
  const confirmed = text.startsWith(CONFIRMED_MARK);
  return { value: BigInt(confirmed ? text.slice(CONFIRMED_MARK.length) : text), confirmed };
}

/** The largest confirmed token among `tokens`, or undefined when none is confirmed. */
export function maxConfirmed(tokens: readonly StoredToken[]): bigint | undefined {
  return maxToken(tokens.filter((token) => token.confirmed));
}

/** The largest of `tokens`, or undefined when there are none. */
export function maxToken(tokens: readonly StoredToken[]): bigint | undefined {
  let max: bigint | undefined;
  for (const { value } of tokens) if (max === undefined || value > max) max = value;
  return max;
}
