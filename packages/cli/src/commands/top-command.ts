import { parseArgs } from "node:util";
import { createLockProvider, LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { abortableSleep } from "@distlock/core/internal";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration } from "../common-options.js";
import { describeFailure } from "../error-exit.js";
import { printHelp, printJson, stateRecord } from "../output.js";
import { LiveScreen } from "../top/live-screen.js";
import { renderTop, type TopSnapshot } from "../top/top-view.js";

export const TOP_HELP = `Usage: distlock top [PREFIX] [--url URL] [--interval 1s] [--limit 100] [--json]

A live view of every lock held under PREFIX (all keys when it is left out, matched literally, not as a pattern):
holder label, fencing token, time left on the lease, hold count and waiters in line, refreshed every --interval.
q or Ctrl-C quits. When stdout is not a terminal, or with --json, it prints one snapshot and exits.
Needs a backend that can list its keys (not SQL session mode). Never shows owner secrets.`;

const DEFAULT_INTERVAL_MS = 1000;
const MIN_INTERVAL_MS = 100;
const MAX_INTERVAL_MS = 3_600_000;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

const TOP_OPTIONS = { ...COMMON_OPTIONS, interval: { type: "string" }, limit: { type: "string" } } as const;

/** Failures that another refresh cannot fix: they end the command instead of being shown on the screen. */
const FATAL_CODES: ReadonlySet<string> = new Set([
  LockErrorCode.InvalidArgument,
  LockErrorCode.InvalidConfig,
  LockErrorCode.UnsupportedOperation,
  LockErrorCode.ProviderClosed,
]);

export async function topCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(() => parseArgs({ args, options: TOP_OPTIONS, allowPositionals: true }));
  if (values.help) return printHelp(TOP_HELP);
  if (positionals.length > 1) throw new CliError(`top takes at most one PREFIX, got ${positionals.length}`);
  const prefix = positionals[0] ?? "";
  const intervalMs = parseDuration("interval", values.interval) ?? DEFAULT_INTERVAL_MS;
  if (intervalMs < MIN_INTERVAL_MS || intervalMs > MAX_INTERVAL_MS) throw new CliError(`--interval must be from 100ms to 60m, got "${values.interval}"`);
  const limit = parseLimit(values.limit);
  const provider = await createLockProvider(values.url);
  try {
    if (!process.stdout.isTTY || values.json) return printOnce(await readSnapshot(provider, prefix, limit), values.json);
    await watch(provider, prefix, limit, intervalMs);
    return 0;
  } finally {
    await provider.close();
  }
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = Number(text);
  if (!/^\d+$/.test(text.trim()) || limit < 1 || limit > MAX_LIMIT) throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got "${text}"`);
  return limit;
}

/** One read of the keys under `prefix` (one more than `limit`, to tell whether there are more). */
async function readSnapshot(provider: LockProvider, prefix: string, limit: number): Promise<TopSnapshot> {
  const states = await provider.list(prefix, { limit: limit + 1 });
  return { backend: provider.backend, prefix, at: new Date(), states: states.slice(0, limit), truncated: states.length > limit };
}

/** `readSnapshot`, a failure another read may not have shown as the snapshot's `error` over the `previous` rows; others thrown. */
async function refresh(provider: LockProvider, prefix: string, limit: number, previous: TopSnapshot | undefined): Promise<TopSnapshot> {
  try {
    return await readSnapshot(provider, prefix, limit);
  } catch (error) {
    if (!LockError.is(error) || FATAL_CODES.has(error.code)) throw error;
    return { backend: provider.backend, prefix, at: new Date(), states: previous?.states ?? [], truncated: false, error: describeFailure(error).line };
  }
}

function printOnce(snapshot: TopSnapshot, json: boolean): number {
  if (json) {
    const { backend, prefix, at, truncated } = snapshot;
    printJson({ backend, prefix, at: at.toISOString(), truncated, locks: snapshot.states.map((state) => stateRecord(state.key, state)) });
  } else {
    process.stdout.write(`${renderTop(snapshot, { columns: Number.POSITIVE_INFINITY, rows: Number.POSITIVE_INFINITY }).join("\n")}\n`);
  }
  return 0;
}

/**
 * Redraws the screen after every read, one read per `intervalMs`, until the screen is stopped. The first read comes
 * before the screen opens, so a failure no refresh can fix (a bad prefix, a backend that cannot list) ends the command.
 */
async function watch(provider: LockProvider, prefix: string, limit: number, intervalMs: number): Promise<void> {
  let snapshot = await refresh(provider, prefix, limit, undefined);
  const screen = new LiveScreen();
  const stop = new AbortController();
  void screen.stopped.then(() => stop.abort());
  const draw = () => screen.draw(renderTop(snapshot, { ...screen.size, intervalMs }));
  const stopResizing = screen.onResize(draw);
  screen.open();
  try {
    for (;;) {
      draw();
      await abortableSleep(intervalMs, stop.signal);
      const next = await Promise.race([refresh(provider, prefix, limit, snapshot), screen.stopped]);
      if (next === undefined || stop.signal.aborted) return;
      snapshot = next;
    }
  } finally {
    stopResizing();
    screen.close();
  }
}
