import { parseArgs } from "node:util";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration } from "../common-options.js";
import { ExitCode } from "../exit-codes.js";
import { printHelp, printJson } from "../output.js";
import { checkLockBackend } from "./check-lock-backend.js";
import type { DoctorReport } from "./doctor-report.js";
import { formatDoctorReport } from "./format-doctor-report.js";

export const DOCTOR_HELP = `Usage: distlock doctor [--url URL] [--ttl 30s] [--no-self-test] [--json] [--strict]

Checks that the backend is safe for locks: the settings that lose locks (an evicting maxmemory-policy, no
persistence and no replica, "independent" Redlock nodes that replicate each other, SQLite on a network
filesystem, ...), then a live self-test on the key "distlock-doctor:self-test" that leaves no hold behind.
One row per check: ok, warn or fail, what was found, and what to change. Never prints a password or owner secret.

  --ttl D          the lease your application uses (default 30s): round trips and drift are judged against it
  --no-self-test   only the deployment checks, no lock taken
  --strict         exit 2 when a check warns (else warnings exit 0)

Exit codes: 0 nothing failed, 1 a check failed, 2 a warning with --strict, 69 the backend could not be reached,
64 bad flags, 78 a malformed URL.`;

export async function doctorCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(() =>
    parseArgs({
      args,
      options: { ...COMMON_OPTIONS, strict: { type: "boolean", default: false }, ttl: { type: "string" }, "no-self-test": { type: "boolean", default: false } },
      allowPositionals: true,
    }),
  );
  if (values.help) return printHelp(DOCTOR_HELP);
  if (positionals.length > 0) throw new CliError(`doctor takes no arguments, got "${positionals[0]}"`);
  const ttlMs = parseDuration("ttl", values.ttl);
  if (ttlMs !== undefined && ttlMs <= 0) throw new CliError("--ttl must be more than 0");
  const report = await checkLockBackend(values.url, { ...(ttlMs === undefined ? {} : { ttlMs }), selfTest: !values["no-self-test"] });
  if (values.json) printJson(report);
  else process.stdout.write(`${formatDoctorReport(report)}\n`);
  return exitCodeOf(report, values.strict);
}

/** 69 unreachable, 1 a failure, 2 a warning under --strict, else 0. */
export function exitCodeOf(report: DoctorReport, strict: boolean): number {
  if (!report.reachable) return ExitCode.Unavailable;
  if (report.summary.fail > 0) return ExitCode.Failure;
  if (strict && report.summary.warn > 0) return ExitCode.Warning;
  return ExitCode.Ok;
}
