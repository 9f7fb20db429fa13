import type { LockState } from "@distlock/core";

/** JSON.stringify replacer writing bigints (fencing tokens) as strings. */
export function bigintAsString(_: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Writes one JSON document to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, bigintAsString)}\n`);
}

/** Prints a command's help text; exit code 0. */
export function printHelp(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

/** A lock state as plain JSON-friendly data; `held: false` for a free key. */
export function stateRecord(key: string, state: LockState | null) {
  if (state === null) return { key, held: false };
  return {
    key,
    held: true,
    holder: state.holder,
    holdCount: state.holdCount,
    fencingToken: state.fencingToken,
    ttlRemainingMs: Math.round(state.ttlRemainingMs),
    waiters: state.waiters,
  };
}

/** Renders rows as an aligned text table with a header. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
