import { setTimeout as sleep } from "node:timers/promises";
import { EVERYONE, type HistoryEvent } from "../history/history-event.js";
import { markFault, nextHolder, type RowRun } from "../runner/row-run.js";
import type { FaultName } from "./fault-name.js";

/** Injects one fault into a running row and returns once it is over (not necessarily recovered). */
export type FaultInjector = (run: RowRun) => Promise<void>;

class InjectionError extends Error {
  override readonly name = "InjectionError";
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new InjectionError(`cannot inject the fault: ${what}`);
  return value;
}

/** SIGKILL a worker inside its critical section; a fresh worker takes its place. */
const holderSigkill: FaultInjector = async (run) => {
  const holder = required(await nextHolder(run), "no worker entered a critical section within 10 s");
  const scope = { outage: false, scope: holder.worker.name };
  markFault(run, "holder-sigkill", "fault", scope);
  holder.worker.kill();
  markFault(run, "holder-sigkill", "fault-end", scope);
  await run.spawnWorker();
};

/**
 * SIGSTOP a worker inside its critical section (a long GC pause), keep it stopped until its lease has
 * run out and another holder wrote with a larger token, then SIGCONT: its next write is stale.
 */
const holderSigstop: FaultInjector = async (run) => {
  const holder = required(await nextHolder(run), "no worker entered a critical section within 10 s");
  const scope = { outage: false, scope: holder.worker.name };
  markFault(run, "holder-sigstop", "fault", scope);
  holder.worker.pause();
  const overtaken = (event: HistoryEvent) => event.type === "write" && event.accepted && event.hold !== holder.hold && BigInt(event.token) > holder.token;
  await run.log.next(overtaken, run.fixture.ttlMs * 3 + run.settings.livenessBoundMs);
  holder.worker.resume();
  markFault(run, "holder-sigstop", "fault-end", scope);
  await run.log.next((event) => event.type === "cs-end" && event.hold === holder.hold, 10_000);
};

/** SIGKILL the backend's server (every master of a Redis Cluster at once) and start it again on the same ports and data dirs. */
const serverRestart: FaultInjector = async (run) => {
  const servers = required(run.fixture.restartable, `${run.fixture.backend} has no server to restart`);
  const scope = { outage: true, scope: EVERYONE };
  markFault(run, "server-restart", "fault", scope);
  await Promise.all(servers.map((server) => server.kill()));
  await sleep(run.fixture.restartDownMs);
  await Promise.all(servers.map((server) => server.start()));
  markFault(run, "server-restart", "fault-end", scope);
};

/** Black-hole every connection of one worker while it holds the key, for two lease lengths. */
const networkCut: FaultInjector = async (run) => {
  const { worker, proxies } = required(run.proxied, "the row has no proxied worker");
  await run.log.next((event) => event.type === "cs-start" && event.worker === worker.name, 10_000);
  const scope = { outage: true, scope: worker.name };
  markFault(run, "network-cut", "fault", scope);
  for (const proxy of proxies) proxy.blackhole();
  await sleep(run.fixture.ttlMs * 2);
  for (const proxy of proxies) {
    proxy.restore();
    proxy.dropConnections();
  }
  markFault(run, "network-cut", "fault-end", scope);
};

/** Crash `count` Redlock masters, keep them down past every lease they granted (delayed restart), start them again. */
function redlockLoss(fault: FaultName, count: number, outage: boolean): FaultInjector {
  return async (run) => {
    const nodes = required(run.fixture.nodes, `${run.fixture.backend} has no Redlock nodes`).slice(0, count);
    const scope = { outage, scope: EVERYONE };
    markFault(run, fault, "fault", scope);
    await Promise.all(nodes.map((node) => node.kill()));
    await sleep(run.fixture.restartDownMs);
    await Promise.all(nodes.map((node) => node.start()));
    markFault(run, fault, "fault-end", scope);
  };
}

/** SIGKILL the etcd leader; the other two members elect a new one; the old leader rejoins later. */
const leaderLoss: FaultInjector = async (run) => {
  const etcd = required(run.fixture.etcd, `${run.fixture.backend} is not an etcd cluster`);
  const leader = await etcd.leader();
  const scope = { outage: false, scope: EVERYONE };
  markFault(run, "leader-loss", "fault", scope);
  await leader.kill();
  await sleep(run.fixture.restartDownMs);
  await leader.start();
  markFault(run, "leader-loss", "fault-end", scope);
};

export const FAULT_INJECTORS: Readonly<Record<FaultName, FaultInjector>> = Object.freeze({
  "holder-sigkill": holderSigkill,
  "holder-sigstop": holderSigstop,
  "server-restart": serverRestart,
  "network-cut": networkCut,
  "minority-loss": redlockLoss("minority-loss", 2, false),
  "majority-loss": redlockLoss("majority-loss", 3, true),
  "leader-loss": leaderLoss,
});
