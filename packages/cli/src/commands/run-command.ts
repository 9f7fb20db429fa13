import { constants } from "node:os";
import { parseArgs } from "node:util";
import { createLockProvider, type Lock, type LockProvider } from "@distlock/core";
import { ChildSupervisor } from "../child-supervisor.js";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration, splitAtDoubleDash } from "../common-options.js";
import { ExitCode } from "../exit-codes.js";
import { lockEnvironment } from "../lock-env.js";
import { bigintAsString, printHelp } from "../output.js";

export const RUN_HELP = `Usage: distlock run <key> [--ttl 30s] [--wait 10s | --no-wait] [--url URL] [--json] -- <command...>

Runs <command> while holding the lock <key>, like flock(1) for a cluster. The lease is renewed
while the command runs. Signals (INT, TERM, HUP, QUIT, USR1, USR2) are forwarded to the command.
The command sees DISTLOCK_KEY, DISTLOCK_HOLDER and DISTLOCK_FENCING_TOKEN in its environment.

Exit code: the command's own (128+N if killed by signal N); 75 if the lock was not acquired
within --wait (or was held, with --no-wait); 76 if the lock was lost while the command ran (the
command is sent SIGTERM, then SIGKILL after --kill-after); 64 usage, 69 backend unreachable, 78 bad config.
With --json, lock events are written to stderr as JSON lines (stdout belongs to the command).`;

export async function runCommand(args: string[]): Promise<number> {
  const { own, program } = splitAtDoubleDash(args);
  const { values, positionals } = parseCommand(() =>
    parseArgs({
      args: own,
      options: {
        ...COMMON_OPTIONS,
        ...{
          ttl: { type: "string" },
          wait: { type: "string" },
          "no-wait": { type: "boolean", default: false },
          "kill-after": { type: "string" },
        },
      },
      allowPositionals: true,
    }),
  );
  if (values.help) return printHelp(RUN_HELP);
  const [key, ...extra] = positionals;
  if (key === undefined) throw new CliError("run needs a <key>");
  if (extra.length > 0 || program.length === 0) throw new CliError('run needs the command after "--", e.g. distlock run nightly -- ./backup.sh');
  const ttlMs = parseDuration("ttl", values.ttl);
  const waitMs = parseDuration("wait", values.wait);
  const killAfterMs = parseDuration("kill-after", values["kill-after"]);
  const event = (name: string, data: object) => values.json && process.stderr.write(`${JSON.stringify({ event: name, ...data }, bigintAsString)}\n`);

  const provider = await createLockProvider(values.url);
  try {
    const lock = values["no-wait"] ? await provider.tryAcquire(key, { ttlMs }) : await acquireInterruptibly(provider, key, ttlMs, waitMs);
    if (lock === null) {
      process.stderr.write(`distlock: lock "${key}" is held by someone else\n`);
      return ExitCode.LockTimeout;
    }
    event("acquired", { key, holder: lock.holder, fencingToken: lock.fencingToken });
    const code = await superviseUnderLock(lock, program, killAfterMs, () => event("lost", { key }));
    if (code === ExitCode.LockLost) return code;
    await lock.release();
    event("released", { key, exitCode: code });
    return code;
  } finally {
    await provider.close();
  }
}

/** Runs the program while `lock` is held; terminates it and returns 76 if the lock is lost first. */
export async function superviseUnderLock(lock: Lock, program: readonly string[], killAfterMs: number | undefined, onLost: () => void): Promise<number> {
  const child = new ChildSupervisor(program, lockEnvironment(lock));
  let lost = false;
  const onAbort = () => {
    lost = true;
    onLost();
    process.stderr.write(`distlock: lock "${lock.key}" was lost; terminating the command\n`);
    child.terminate(killAfterMs);
  };
  lock.signal.addEventListener("abort", onAbort, { once: true });
  const code = await child.exited;
  lock.signal.removeEventListener("abort", onAbort);
  return lost ? ExitCode.LockLost : code;
}

async function acquireInterruptibly(provider: LockProvider, key: string, ttlMs: number | undefined, waitMs: number | undefined) {
  const interrupted = new AbortController();
  const onSignal = (signal: NodeJS.Signals) =>
    interrupted.abort(new CliError(`interrupted by ${signal} while waiting for "${key}"`, 128 + (constants.signals[signal] ?? 0)));
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    return await provider.acquire(key, { ttlMs, waitMs, signal: interrupted.signal });
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }
}
