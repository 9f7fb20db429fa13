import { constants } from "node:os";
import { parseArgs } from "node:util";
import { createLockProvider, elect } from "@distlock/core";
import { ChildSupervisor, FORWARDED_SIGNALS } from "../child-supervisor.js";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration, splitAtDoubleDash } from "../common-options.js";
import { bigintAsString, printHelp } from "../output.js";

export const ELECT_HELP = `Usage: distlock elect <name> [--ttl 30s] [--url URL] [--json] -- <command...>

Campaigns for leadership of <name> and runs <command> only while this node is the leader. If
leadership is lost the command is terminated (SIGTERM, then SIGKILL after --kill-after) and the
campaign goes on; on re-election the command starts again. The command sees DISTLOCK_KEY,
DISTLOCK_HOLDER and DISTLOCK_FENCING_TOKEN (the term's token).

Exit code: the command's own when it ends by itself while leading (this also ends the campaign);
128+N when distlock is stopped by signal N (forwarded to a running command first).
With --json, election events are written to stderr as JSON lines.`;

export async function electCommand(args: string[]): Promise<number> {
  const { own, program } = splitAtDoubleDash(args);
  const { values, positionals } = parseCommand(() =>
    parseArgs({ args: own, options: { ...COMMON_OPTIONS, ...{ ttl: { type: "string" }, "kill-after": { type: "string" } } }, allowPositionals: true }),
  );
  if (values.help) return printHelp(ELECT_HELP);
  const [name, ...extra] = positionals;
  if (name === undefined) throw new CliError("elect needs a <name>");
  if (extra.length > 0 || program.length === 0) throw new CliError('elect needs the command after "--", e.g. distlock elect cron -- ./dispatch.sh');
  const ttlMs = parseDuration("ttl", values.ttl);
  const killAfterMs = parseDuration("kill-after", values["kill-after"]);
  const event = (eventName: string, data: object) =>
    values.json && process.stderr.write(`${JSON.stringify({ event: eventName, name, ...data }, bigintAsString)}\n`);

  const provider = await createLockProvider(values.url);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let child: ChildSupervisor | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (child === undefined) finish(128 + (constants.signals[signal] ?? 0));
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
  const election = elect(provider, name, {
    ttlMs,
    onError: (error) => event("error", { message: error instanceof Error ? error.message : String(error) }),
    onElected: async (signal, leadership) => {
      event("elected", leadership);
      const env = { ...process.env, DISTLOCK_KEY: name, DISTLOCK_HOLDER: leadership.holder, DISTLOCK_FENCING_TOKEN: leadership.fencingToken?.toString() ?? "" };
      child = new ChildSupervisor(program, env);
      const stopChild = () => child?.terminate(killAfterMs);
      signal.addEventListener("abort", stopChild, { once: true });
      const code = await child.exited;
      child = undefined;
      signal.removeEventListener("abort", stopChild);
      if (signal.aborted) {
        event("deposed", { reason: (signal.reason as Error | undefined)?.message });
        return;
      }
      finish(code);
    },
  });
  try {
    return await finished;
  } finally {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, onSignal);
    await election.stop();
    await provider.close();
  }
}
