import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createLockProvider, type LockProvider } from "@distlock/core";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand, parseDuration } from "../common-options.js";
import { printHelp, printJson } from "../output.js";
import { DemoLedger } from "./demo-ledger.js";
import type { DemoEvent } from "./demo-protocol.js";
import { fencedWriteScene } from "./fenced-write-scene.js";

export const DEMO_HELP = `Usage: distlock demo [--workers 4] [--duration 10s] [--url URL] [--json]

Starts worker processes that share one lock backend (default: a fresh SQLite file, no server).
They elect one cron dispatcher among themselves and take turns in a fenced critical section.
Midway the demo SIGKILLs the leader; another worker takes over within the lease. Then a worker
that holds a price lock stalls past its lease (a stop-the-world pause) while another takes the lock
and writes; its late write to the fenced SQLite row is refused. Prints a live timeline and a
summary; exits 1 if two workers were ever inside the critical section together or a late write landed.`;

/** How much longer than its half of the run the demo waits for an election it has not seen yet. */
const ELECTION_WAIT_MS = 30_000;

export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseCommand(() =>
    parseArgs({
      args: args,
      options: { ...COMMON_OPTIONS, ...{ workers: { type: "string", default: "4" }, duration: { type: "string", default: "10s" } } },
      allowPositionals: true,
    }),
  );
  if (values.help) return printHelp(DEMO_HELP);
  const workerCount = Number(values.workers);
  if (!Number.isInteger(workerCount) || workerCount < 2 || workerCount > 32) throw new CliError("--workers must be a whole number from 2 to 32");
  const durationMs = parseDuration("duration", values.duration) ?? 10_000;
  const demoDir = mkdtempSync(join(tmpdir(), "distlock-demo-"));
  try {
    return await runDemo({ workerCount, durationMs, url: values.url, json: values.json === true, demoDir });
  } finally {
    rmSync(demoDir, { recursive: true, force: true });
  }
}

/** The demo's run, its SQLite files (the default lock backend's and the price shop's) in `demoDir`. */
async function runDemo(run: { workerCount: number; durationMs: number; url: string | undefined; json: boolean; demoDir: string }): Promise<number> {
  const { workerCount, durationMs, demoDir, json } = run;
  const url = run.url ?? `sqlite:${join(demoDir, "locks.sqlite")}`;
  const started = performance.now();
  const log = (line: string) => json || process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(2).padStart(6)}s] ${line}\n`);
  log(`backend ${url.split("?")[0]}, ${workerCount} worker processes`);

  const ledger = new DemoLedger();
  const terms: Array<{ worker: number; token: bigint; at: number }> = [];
  const electionChecks = new Set<() => void>();
  // Each half of the run also lasts until the election it is about (the first, then the one after the kill) has been
  // seen, up to ELECTION_WAIT_MS more: on a loaded machine the workers can start, or take over, later than half the run.
  const untilElections = (count: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        electionChecks.delete(check);
        resolve();
      };
      const check = () => {
        if (terms.length >= count) done();
      };
      const timer = setTimeout(done, ELECTION_WAIT_MS);
      electionChecks.add(check);
      check();
    });
  let dispatched = 0;
  let killedAt: number | undefined;
  let failoverMs: number | undefined;
  const workers = new Map<number, ChildProcess>();
  const script = fileURLToPath(new URL("./demo-worker.js", import.meta.url));
  for (let id = 0; id < workerCount; id++) {
    const child = fork(script, [], { env: { ...process.env, DISTLOCK_URL: url, DEMO_WORKER: String(id) }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    workers.set(id, child);
    child.on("message", (event: DemoEvent) => {
      switch (event.type) {
        case "enter":
          ledger.enter(event.worker, BigInt(event.fencingToken));
          child.send(event.id);
          break;
        case "exit":
          ledger.exit(event.worker);
          child.send(event.id);
          break;
        case "dispatched":
          dispatched += 1;
          break;
        case "elected":
          terms.push({ worker: event.worker, token: BigInt(event.fencingToken), at: performance.now() });
          if (killedAt !== undefined && failoverMs === undefined) failoverMs = performance.now() - killedAt;
          for (const check of [...electionChecks]) check();
          log(
            `worker ${event.worker} elected cron dispatcher (fencing token ${event.fencingToken})${terms.length > 1 && failoverMs !== undefined ? `, ${Math.round(failoverMs)} ms after the kill` : ""}`,
          );
          break;
        case "deposed":
          log(`worker ${event.worker} stepped down`);
          break;
      }
    });
  }

  const progress = setInterval(() => log(`${ledger.sections} fenced critical sections, ${dispatched} jobs dispatched, overlaps ${ledger.overlaps}`), 2_000);
  await new Promise((resolve) => setTimeout(resolve, durationMs / 2));
  await untilElections(1);
  const leader = terms.at(-1);
  if (leader !== undefined) {
    log(`SIGKILL the leader, worker ${leader.worker}`);
    killedAt = performance.now();
    workers.get(leader.worker)?.kill("SIGKILL");
    ledger.forget(leader.worker);
  }
  await new Promise((resolve) => setTimeout(resolve, durationMs / 2));
  if (leader !== undefined && failoverMs === undefined) await untilElections(terms.length + 1);
  clearInterval(progress);
  for (const child of workers.values()) child.kill("SIGKILL");
  const fenced = await withProvider(url, (provider) => fencedWriteScene(provider, url, demoDir, log));

  const tokensIncrease = terms.every((term, i) => i === 0 || term.token > (terms[i - 1]?.token ?? -1n));
  const summary = {
    backend: url.split(":")[0],
    workers: workerCount,
    criticalSections: ledger.sections,
    overlaps: ledger.overlaps,
    staleWritesRefused: ledger.staleWrites,
    jobsDispatched: dispatched,
    leaderTerms: terms.length,
    leaderTokensIncrease: tokensIncrease,
    failoverMs: failoverMs === undefined ? null : Math.round(failoverMs),
    lateWriteRefused: fenced.lateWriteRefused,
    finalPrice: fenced.finalPrice,
  };
  if (json) printJson(summary);
  else {
    process.stdout.write("\nsummary\n");
    for (const [name, value] of Object.entries(summary)) process.stdout.write(`  ${name.padEnd(20)} ${value}\n`);
  }
  const ok = ledger.overlaps === 0 && ledger.staleWrites === 0 && tokensIncrease && failoverMs !== undefined && fenced.lateWriteRefused;
  return ok ? 0 : 1;
}

async function withProvider<T>(url: string, use: (provider: LockProvider) => Promise<T>): Promise<T> {
  const provider = await createLockProvider(url);
  try {
    return await use(provider);
  } finally {
    await provider.close();
  }
}
