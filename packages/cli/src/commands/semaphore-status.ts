import type { LockProvider, SemaphoreState } from "@distlock/core";
import { formatTable, printJson } from "../output.js";

/** The record `status --permits` prints for one semaphore (never an owner secret). */
export function semaphoreRecord(name: string, state: SemaphoreState | null) {
  if (state === null) return { key: name, held: false, inUse: 0 };
  return {
    key: name,
    held: true,
    permits: state.permits,
    inUse: state.inUse,
    waiters: state.waiters,
    holders: state.holders.map((h) => ({ holder: h.holder, count: h.count, fencingToken: h.fencingToken, ttlRemainingMs: Math.round(h.ttlRemainingMs) })),
  };
}

/** `status --permits N <name...>`: permits in use, holders and waiters of each semaphore. */
export async function printSemaphoreStatus(provider: LockProvider, names: readonly string[], permits: number, json: boolean): Promise<void> {
  const records = [];
  for (const name of names) records.push(semaphoreRecord(name, await provider.semaphore(name, { permits }).inspect()));
  if (json) {
    printJson({ backend: provider.backend, semaphores: records });
    return;
  }
  const rows = records.map((r) => [
    r.key,
    `${r.inUse}/${r.held ? r.permits : permits}`,
    r.holders?.map((h) => `${h.holder} x${h.count} (token ${h.fencingToken ?? "-"}, ${(h.ttlRemainingMs / 1000).toFixed(1)}s)`).join(", ") || "(free)",
    String(r.waiters ?? 0),
  ]);
  process.stdout.write(`${formatTable(["SEMAPHORE", "IN USE", "HOLDERS", "WAITERS"], rows)}\n`);
}
