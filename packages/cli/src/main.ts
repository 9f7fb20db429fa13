import { backendModulesFrom } from "@distlock/core/internal";
import { takeBackendModules } from "./backend-module-flag.js";
import { CliError } from "./cli-error.js";
import { describeFailure } from "./error-exit.js";
import { printHelp } from "./output.js";

type Command = (args: string[]) => Promise<number>;

/** Each command's module loads when it runs, so `run` does not start by loading every client library `doctor` uses. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./commands/run-command.js")).runCommand,
  elect: async () => (await import("./commands/elect-command.js")).electCommand,
  status: async () => (await import("./commands/status-command.js")).statusCommand,
  top: async () => (await import("./commands/top-command.js")).topCommand,
  release: async () => (await import("./commands/release-command.js")).releaseCommand,
  doctor: async () => (await import("./doctor/doctor-command.js")).doctorCommand,
  demo: async () => (await import("./demo/demo-command.js")).demoCommand,
};

export const MAIN_HELP = `Usage: distlock <command> [options]

Commands:
  run <key> -- <command...>    run a command while holding a lock (flock for a cluster)
  elect <name> -- <command...> run a command only while this node is the leader
  status <key...>              show who holds keys
  top [prefix]                 live view of every lock held under a prefix (q quits)
  release --force <key>        free a key whoever holds it
  doctor                       check that the backend is safe for locks (eviction, persistence, replicas, ...)
  demo                         elect a cron dispatcher among worker processes, kill it, watch fail-over

Backend: --url URL, else DISTLOCK_URL, else the SQLite file distlock.sqlite in the working directory.
A backend distlock does not ship: --backend-module M (repeatable; a package name or a file path that exports
createLockProviderFromConfig and lockBackend), or DISTLOCK_BACKENDS=M1,M2; its URL scheme then works with --url.
Every command takes --help and --json.`;

/** Runs the command line; resolves with the exit code. Errors end as one line on stderr. */
export async function main(argv: string[]): Promise<number> {
  try {
    const { rest, modules } = takeBackendModules(argv);
    // Through the environment, so the worker processes a command starts (demo) load the same backends.
    if (modules.length > 0) process.env.DISTLOCK_BACKENDS = [...backendModulesFrom(process.env), ...modules].join(",");
    const [name, ...args] = rest;
    if (name === undefined || name === "--help" || name === "-h" || name === "help") return printHelp(MAIN_HELP);
    const load = COMMANDS[name];
    if (load === undefined) throw new CliError(`unknown command "${name}"`);
    return await (await load())(args);
  } catch (error) {
    const { line, exitCode } = describeFailure(error);
    process.stderr.write(`distlock: ${line}\n`);
    return exitCode;
  }
}
