import { constants } from "node:os";
import { parseArgs } from "node:util";
import { createLockProvider, type Lock, type LockProvider } from "@distlock/core";
import { ChildSupervisor } from "../child-supervisor.js";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration, parsePermits, splitAtDoubleDash } from "../common-options.js";
import { ExitCode } from "../exit-codes.js";
import { lockEnvironment } from "../lock-env.js";
import { bigintAsString, printHelp } from "../output.js";

export const RUN_HELP = `Usage: distlock run <key> [--permits N] [--ttl 30s] [--wait 10s | --no-wait] [--url URL] [--json] -- <command...>

Runs <command> while holding the lock <key>, like flock(1) for a cluster. The lease is renewed
while the command runs. With --permits N, <key> is a counting semaphore of N permits and the
command runs under one of them, so at most N such commands run at once (like consul lock -n);
every process must name the same N. Signals (INT, TERM, HUP, QUIT, USR1, USR2) are forwarded to the command.
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
          permits: { type: "string" },
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
  const permits = parsePermits(values.permits);
  const event = (name: string, data: object) => values.json && process.stderr.write(`${JSON.stringify({ event: name, ...data }, bigintAsString)}\n`);

  const provider = await createLockProvider(values.url);
  try {
    const lock = await take(provider, key, permits, values["no-wait"], { ttlMs, waitMs });
    if (lock === null) {
      process.stderr.write(`distlock: ${permits === undefined ? `lock "${key}" is held by someone else` : `all ${permits} permits of "${key}" are held`}\n`);
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

/** A lock, or a permit seen as one (`key` is the semaphore's name). */
type Held = Pick<Lock, "key" | "holder" | "fencingToken" | "signal" | "release">;

/** The lock `key`, or one permit of the semaphore `key` when `permits` is given; null when not free and `noWait`. */
async function take(
  provider: LockProvider,
  key: string,
  permits: number | undefined,
  noWait: boolean,
  options: { ttlMs: number | undefined; waitMs: number | undefined },
): Promise<Held | null> {
  if (permits === undefined)
    return noWait ? provider.tryAcquire(key, { ttlMs: options.ttlMs }) : acquireInterruptibly(key, (signal) => provider.acquire(key, { ...options, signal }));
  const semaphore = provider.semaphore(key, { permits });
  const permit = noWait
    ? await semaphore.tryAcquire({ ttlMs: options.ttlMs })
    : await acquireInterruptibly(key, (signal) => semaphore.acquire({ ...options, signal }));
  return permit === null ? null : { key, holder: permit.holder, fencingToken: permit.fencingToken, signal: permit.signal, release: () => permit.release() };
}

/** Runs the program while `lock` is held; terminates it and returns 76 if the lock is lost first. */
export async function superviseUnderLock(lock: Held, program: readonly string[], killAfterMs: number | undefined, onLost: () => void): Promise<number> {
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

async function acquireInterruptibly<T>(key: string, acquire: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const interrupted = new AbortController();
  const onSignal = (signal: NodeJS.Signals) =>
    interrupted.abort(new CliError(`interrupted by ${signal} while waiting for "${key}"`, 128 + (constants.signals[signal] ?? 0)));
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    return await acquire(interrupted.signal);
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }
}
