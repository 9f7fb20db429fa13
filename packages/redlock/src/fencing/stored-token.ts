/** The token field of one node's stored hold: null when the hold was taken without fencing. */
export function parseStoredToken(raw: unknown): bigint | null {
  const text = String(raw);
  return text === "" ? null : BigInt(text);
}

/** The largest of `tokens`, or undefined when there are none. */
export function maxToken(tokens: readonly (bigint | null)[]): bigint | undefined {
  let max: bigint | undefined;
  for (const value of tokens) if (value !== null && (max === undefined || value > max)) max = value;
  return max;
}
