import { parseArgs } from "node:util";
import { createLockProvider } from "@distlock/core";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parsePermits } from "../common-options.js";
import { formatTable, printHelp, printJson, stateRecord } from "../output.js";
import { printSemaphoreStatus } from "./semaphore-status.js";

export const STATUS_HELP = `Usage: distlock status <key...> [--permits N] [--url URL] [--json]

Shows who holds each key: holder label, hold count, fencing token, time left on the lease and waiters in line.
With --permits N, each key is a semaphore of N permits: permits in use, each holder's count, and waiters.
Name the keys you care about; \`distlock top [PREFIX]\` lists every held key under a prefix. Never shows owner secrets.`;

export async function statusCommand(args: string[]): Promise<number> {
  const { values, positionals: keys } = parseCommand(() =>
    parseArgs({ args: args, options: { ...COMMON_OPTIONS, ...{ permits: { type: "string" } } }, allowPositionals: true }),
  );
  if (values.help) return printHelp(STATUS_HELP);
  if (keys.length === 0) throw new CliError("status needs at least one <key>");
  const permits = parsePermits(values.permits);
  const provider = await createLockProvider(values.url);
  try {
    if (permits !== undefined) {
      await printSemaphoreStatus(provider, keys, permits, values.json);
      return 0;
    }
    const records = [];
    for (const key of keys) records.push(stateRecord(key, await provider.inspect(key)));
    if (values.json) printJson({ backend: provider.backend, locks: records });
    else {
      const rows = records.map((r) =>
        r.held
          ? [r.key, String(r.holder), String(r.holdCount), String(r.fencingToken ?? "-"), `${((r.ttlRemainingMs ?? 0) / 1000).toFixed(1)}s`, String(r.waiters)]
          : [r.key, "(free)", "", "", "", ""],
      );
      process.stdout.write(`${formatTable(["KEY", "HOLDER", "COUNT", "TOKEN", "TTL LEFT", "WAITERS"], rows)}\n`);
    }
    return 0;
  } finally {
    await provider.close();
  }
}
