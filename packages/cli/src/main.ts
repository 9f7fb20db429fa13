import { backendModulesFrom } from "@distlock/core/internal";
import { takeBackendModules } from "./backend-module-flag.js";
import { CliError } from "./cli-error.js";
import { ELECT_HELP, electCommand } from "./commands/elect-command.js";
import { RELEASE_HELP, releaseCommand } from "./commands/release-command.js";
import { RUN_HELP, runCommand } from "./commands/run-command.js";
import { STATUS_HELP, statusCommand } from "./commands/status-command.js";
import { TOP_HELP, topCommand } from "./commands/top-command.js";
import { DEMO_HELP, demoCommand } from "./demo/demo-command.js";
import { DOCTOR_HELP, doctorCommand } from "./doctor/doctor-command.js";
import { describeFailure } from "./error-exit.js";
import { printHelp } from "./output.js";

const COMMANDS: Record<string, { run: (args: string[]) => Promise<number>; help: string }> = {
  run: { run: runCommand, help: RUN_HELP },
  elect: { run: electCommand, help: ELECT_HELP },
  status: { run: statusCommand, help: STATUS_HELP },
  top: { run: topCommand, help: TOP_HELP },
  release: { run: releaseCommand, help: RELEASE_HELP },
  doctor: { run: doctorCommand, help: DOCTOR_HELP },
  demo: { run: demoCommand, help: DEMO_HELP },
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
    const command = COMMANDS[name];
    if (command === undefined) throw new CliError(`unknown command "${name}"`);
    return await command.run(args);
  } catch (error) {
    const { line, exitCode } = describeFailure(error);
    process.stderr.write(`distlock: ${line}\n`);
    return exitCode;
  }
}
