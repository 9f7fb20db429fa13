import type { MultiKeyRowStats, RowResult, SemaphoreRowStats } from "../runner/row-result.js";

const LOCK_HEADER = [
  "backend",
  "fault",
  "workers",
  "operations",
  "faults injected",
  "writes ok / rejected / failed",
  "stale writes",
  "stale accepted",
  "violations",
  "recovery (ms)",
  "row time (s)",
];

const SEMAPHORE_HEADER = [
  "backend",
  "fault",
  "permits (asked per locker)",
  "workers",
  "grants",
  "faults injected",
  "acts",
  "holds lost",
  "most held at once",
  "violations",
  "recovery (ms)",
  "row time (s)",
];

const MULTI_KEY_HEADER = [
  "backend",
  "fault",
  "keys (per set)",
  "workers",
  "sets taken",
  "faults injected",
  "writes ok / rejected / failed",
  "stale writes",
  "stale accepted",
  "stuck lockers",
  "held after death (ms)",
  "violations",
  "recovery (ms)",
  "row time (s)",
];

/** A row's name in messages: `redis / holder-sigkill`, `redis semaphore / holder-sigkill`, `redis multi-key / holder-sigkill`. */
export function rowName(row: RowResult): string {
  return `${row.backend}${row.primitive === "lock" ? "" : ` ${row.primitive}`} / ${row.fault}`;
}

/** The cells every table ends with. */
function outcome(row: RowResult): (string | number)[] {
  return [
    row.fencedOverlaps.length === 0 ? row.violations.length : `${row.violations.length} (+${row.fencedOverlaps.length} fenced overlaps)`,
    row.recoveryMs === null ? "—" : Math.round(row.recoveryMs),
    (row.durationMs / 1_000).toFixed(1),
  ];
}

/** A row that could not run: its name, a dash in every count, **failed** for its violations (the reason is listed below). */
function failedCells(row: RowResult, header: readonly string[]): (string | number)[] {
  const counts = header.length - 5;
  return [row.backend, row.fault, ...Array.from({ length: counts }, () => "—"), "**failed**", "—", (row.durationMs / 1_000).toFixed(1)];
}

/** The write counts of a row whose holders write: ok / rejected / failed, stale, stale accepted. */
const writeCells = (row: RowResult): (string | number)[] => [
  `${row.writesAccepted} / ${row.writesRejected} / ${row.writesFailed}`,
  row.staleWrites,
  row.staleWritesAccepted,
];

function lockCells(row: RowResult): (string | number)[] {
  if (row.failure !== undefined) return failedCells(row, LOCK_HEADER);
  return [row.backend, row.fault, row.workers, row.operations, row.faultsInjected, ...writeCells(row), ...outcome(row)];
}

function multiKeyCells(row: RowResult, multiKey: MultiKeyRowStats): (string | number)[] {
  const [min, max] = multiKey.keysPerSet;
  return [
    row.backend,
    row.fault,
    `${multiKey.keys} (${min}–${max})`,
    row.workers,
    row.operations,
    row.faultsInjected,
    ...writeCells(row),
    multiKey.stuckLockers,
    multiKey.longestHeldAfterDeathMs === null ? "—" : Math.round(multiKey.longestHeldAfterDeathMs),
    ...outcome(row),
  ];
}

function semaphoreCells(row: RowResult, semaphore: SemaphoreRowStats): (string | number)[] {
  return [
    row.backend,
    row.fault,
    `${semaphore.permits} (${semaphore.counts.join(", ")})`,
    row.workers,
    row.operations,
    row.faultsInjected,
    semaphore.acts,
    semaphore.holdsLost,
    semaphore.peakHeld,
    ...outcome(row),
  ];
}

function table(header: readonly string[], rows: readonly (string | number)[][]): string[] {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i < 2 ? " --- " : " ---: ")).join("|")}|`];
  return [...lines, ...rows.map((cells) => `| ${cells.join(" | ")} |`)];
}

/**
 * The matrix as Markdown: a table of the lock rows, one of the semaphore rows, one of the multi-key rows (each only if
 * it has rows); rows that failed to run, violations, fenced overlaps and worker failures are listed below.
 */
export function formatTable(rows: readonly RowResult[]): string {
  const lockRows = rows.filter((row) => row.primitive === "lock").map(lockCells);
  const semaphoreRows = rows
    .filter((row) => row.primitive === "semaphore")
    .map((row) => (row.semaphore === undefined ? failedCells(row, SEMAPHORE_HEADER) : semaphoreCells(row, row.semaphore)));
  const multiKeyRows = rows
    .filter((row) => row.primitive === "multi-key")
    .map((row) => (row.multiKey === undefined ? failedCells(row, MULTI_KEY_HEADER) : multiKeyCells(row, row.multiKey)));
  const tables = [
    lockRows.length === 0 ? [] : table(LOCK_HEADER, lockRows),
    semaphoreRows.length === 0 ? [] : table(SEMAPHORE_HEADER, semaphoreRows),
    multiKeyRows.length === 0 ? [] : table(MULTI_KEY_HEADER, multiKeyRows),
  ]
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join("\n"));
  const problems = rows.flatMap((row) => {
    const name = rowName(row);
    return [
      ...(row.failure === undefined ? [] : [`- ${name}: **row failed**: ${row.failure}`]),
      ...row.violations.map((v) => `- ${name}: **${v.kind}**: ${v.detail}`),
      ...row.fencedOverlaps.map((v) => `- ${name}: overlap caught by fencing (no lower token accepted after a higher one): ${v.detail}`),
      ...row.workerFailures.map((failure) => `- ${name}: worker failed: ${failure}`),
    ];
  });
  return [tables.join("\n\n"), ...(problems.length === 0 ? [] : ["", ...problems])].join("\n");
}
