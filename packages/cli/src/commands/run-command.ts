import { constants } from "node:os";
import { parseArgs } from "node:util";
import { createLockProvider, type LockProvider, type MultiLock } from "@distlock/core";
import { ChildSupervisor } from "../child-supervisor.js";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration, parsePermits, splitAtDoubleDash } from "../common-options.js";
import { ExitCode } from "../exit-codes.js";
import { lockEnvironment } from "../lock-env.js";
import { bigintAsString, printHelp } from "../output.js";

export const RUN_HELP = `Usage: distlock run <key> [<key>...] [--permits N] [--ttl 30s] [--wait 10s | --no-wait] [--url URL] [--json] -- <command...>

Runs <command> while holding the lock <key>, like flock(1) for a cluster. The lease is renewed
while the command runs. Several keys are held all or none (taken in one global order, so two runs
naming overlapping keys in any order never deadlock). With --permits N, <key> is a counting
semaphore of N permits and the command runs under one of them, so at most N such commands run at
once (like consul lock -n); every process must name the same N. Signals (INT, TERM, HUP, QUIT,
USR1, USR2) are forwarded to the command. The command sees DISTLOCK_HOLDER, DISTLOCK_KEYS (a JSON
array) and DISTLOCK_FENCING_TOKENS (a JSON object of key to token) in its environment, and with one
key DISTLOCK_KEY and DISTLOCK_FENCING_TOKEN too.

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
  if (positionals.length === 0) throw new CliError("run needs a <key>");
  if (program.length === 0) throw new CliError('run needs the command after "--", e.g. distlock run nightly -- ./backup.sh');
  const ttlMs = parseDuration("ttl", values.ttl);
  const waitMs = parseDuration("wait", values.wait);
  const killAfterMs = parseDuration("kill-after", values["kill-after"]);
  const permits = parsePermits(values.permits);
  if (permits !== undefined && positionals.length > 1) throw new CliError("run --permits takes one semaphore name, not several keys");
  const event = (name: string, data: object) => values.json && process.stderr.write(`${JSON.stringify({ event: name, ...data }, bigintAsString)}\n`);

  const provider = await createLockProvider(values.url);
  try {
    const held = await take(provider, positionals, permits, values["no-wait"], { ttlMs, waitMs });
    const named = heldNames(held ?? { keys: positionals, fencingTokens: new Map() });
    if (held === null) {
      const what = permits === undefined ? `${named.what} is held by someone else` : `all ${permits} permits of "${positionals[0]}" are held`;
      process.stderr.write(`distlock: ${what}\n`);
      return ExitCode.LockTimeout;
    }
    event("acquired", { ...named.fields, holder: held.holder });
    const code = await superviseUnderLock(held, program, killAfterMs, () => event("lost", named.keyFields));
    if (code === ExitCode.LockLost) return code;
    await held.release();
    event("released", { ...named.keyFields, exitCode: code });
    return code;
  } finally {
    await provider.close();
  }
}

/** The keys (or one permit, under the semaphore's name) the command runs under. */
type Held = Pick<MultiLock, "keys" | "holder" | "fencingTokens" | "signal" | "release">;

/** The lock events' fields and the messages' wording for what is held: one key as before, several as lists. */
function heldNames(held: Pick<Held, "keys" | "fencingTokens">) {
  const [only] = held.keys;
  if (held.keys.length === 1 && only !== undefined) {
    return { what: `lock "${only}"`, keyFields: { key: only }, fields: { key: only, fencingToken: held.fencingTokens.get(only) ?? null } };
  }
  return {
    what: `one of the locks ${held.keys.map((key) => `"${key}"`).join(", ")}`,
    keyFields: { keys: held.keys },
    fields: { keys: held.keys, fencingTokens: Object.fromEntries(held.fencingTokens) },
  };
}

/** The locks `keys`, or one permit of the semaphore `keys[0]` when `permits` is given; null when not free and `noWait`. */
async function take(
  provider: LockProvider,
  keys: readonly string[],
  permits: number | undefined,
  noWait: boolean,
  options: { ttlMs: number | undefined; waitMs: number | undefined },
): Promise<Held | null> {
  const label = keys.join(", ");
  if (permits === undefined) {
    if (noWait) return provider.tryAcquireAll(keys, { ttlMs: options.ttlMs });
    return acquireInterruptibly(label, (signal) => provider.acquireAll(keys, { ...options, signal }));
  }
  const name = keys[0] as string;
  const semaphore = provider.semaphore(name, { permits });
  const permit = noWait
    ? await semaphore.tryAcquire({ ttlMs: options.ttlMs })
    : await acquireInterruptibly(label, (signal) => semaphore.acquire({ ...options, signal }));
  if (permit === null) return null;
  return { keys: [name], holder: permit.holder, fencingTokens: new Map([[name, permit.fencingToken]]), signal: permit.signal, release: () => permit.release() };
}

/** Runs the program while `lock` is held; terminates it and returns 76 if the lock is lost first. */
export async function superviseUnderLock(lock: Held, program: readonly string[], killAfterMs: number | undefined, onLost: () => void): Promise<number> {
  const child = new ChildSupervisor(program, lockEnvironment(lock));
  let lost = false;
  const onAbort = () => {
    lost = true;
    onLost();
    process.stderr.write(`distlock: ${heldNames(lock).what} was lost; terminating the command\n`);
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
