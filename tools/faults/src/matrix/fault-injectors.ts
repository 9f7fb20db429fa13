import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import { parseLockRecord, RedisKeyLayout } from "@distlock/redis/internal";
import { pollFor, type RedisSentinelSet, type RedisServer, startTcpProxy, type TcpProxy } from "@distlock/test-servers";
import { EVERYONE, type HistoryEvent, machineNow, processOf } from "../history/history-event.js";
import { type Holder, markFault, nextHolder, type Of, permitsHeldByOthers, type RowRun } from "../runner/row-run.js";
import type { FaultName } from "./fault-name.js";
import { anyWriteLockKept } from "./sqlite-write-lock.js";

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
  const killedAt = markFault(run, "holder-sigkill", "fault", scope);
  holder.worker.kill();
  markFault(run, "holder-sigkill", "fault-end", scope);
  await Promise.all([run.spawnWorker(), run.deadHolderProbe?.watch(holder.worker, killedAt)]);
};

/**
 * When a paused holder has been overtaken. A lock's: on each of its keys another holder wrote with a larger token (so
 * the paused one's next writes are stale). A semaphore's: once its lease ran out, other processes were granted every
 * permit at once (so the paused one's permits went to others).
 */
function overtaken(run: RowRun, holder: Holder): (event: HistoryEvent) => boolean {
  if (run.primitive !== "semaphore") {
    const notYet = new Map(holder.tokens);
    return (event) => {
      if (event.type === "write" && event.accepted && event.hold !== holder.hold) {
        const mine = notYet.get(event.key);
        if (mine !== undefined && BigInt(event.token) > mine) notYet.delete(event.key);
      }
      return notYet.size === 0;
    };
  }
  const deadline = run.log.events.reduce(
    (latest, event) => ((event.type === "acquired" || event.type === "valid") && event.hold === holder.hold ? Math.max(latest, event.validUntil) : latest),
    0,
  );
  const permits = run.settings.semaphorePermits;
  return (event) => event.type === "acquired" && event.at > deadline && permitsHeldByOthers(run, holder.worker.name) >= permits;
}

/**
 * The next holder whose critical section the parent could keep between its two steps (it waits there until "go-on"):
 * a holder stopped after its last step would have no stale write left to make. Sections that were past that point when
 * asked are let go and the next one is asked.
 */
async function heldBetweenSteps(run: RowRun, timeoutMs = 10_000): Promise<Holder | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = deadline - performance.now();
    const holder = left > 0 ? await nextHolder(run, left) : undefined;
    if (holder === undefined) return undefined;
    holder.worker.holdOn(holder.hold);
    const answer = await run.log.next((event): event is Of<"held-on"> => event.type === "held-on" && event.hold === holder.hold, timeoutMs);
    if (answer?.parked === true) return holder;
  }
}

/**
 * SIGSTOP a worker inside its critical section, between its two steps (a long GC pause), keep it stopped until its
 * lease has run out and it was overtaken (see `overtaken`), then SIGCONT and let it go on: its second write is stale; a
 * semaphore holder must not act again.
 */
const holderSigstop: FaultInjector = async (run) => {
  const holder = required(await heldBetweenSteps(run), "no worker's critical section could be held between its steps within 10 s");
  const scope = { outage: false, scope: holder.worker.name };
  const stoppedAt = markFault(run, "holder-sigstop", "fault", { ...scope, targetHold: holder.hold });
  holder.worker.pause();
  const overtook = await run.log.next(overtaken(run, holder), run.fixture.ttlMs * 3 + run.settings.livenessBoundMs);
  // Nobody got past it: stopped inside a write to a SQLite file, it keeps the file's write lock, and every other write
  // there has waited since the stop (an outage for all). Probed only now, when a lock still kept must date from before it.
  if (overtook === undefined && (await anyWriteLockKept(run.embeddedFiles))) {
    const everyone = { outage: true, scope: EVERYONE };
    markFault(run, "write-lock-kept", "fault", everyone, stoppedAt);
    markFault(run, "write-lock-kept", "fault-end", everyone);
  }
  holder.worker.resume();
  holder.worker.goOn();
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
  await run.log.next((event) => event.type === "cs-start" && processOf(event.worker) === worker.name, 10_000);
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

/** How long a leader-loss row waits for a server to lead again before it gives the election up as never ending. */
const ELECTION_LIMIT_MS = 60_000;

/**
 * SIGKILL the leader (etcd's, the NATS stream's, the ZooKeeper ensemble's); the others elect a new one; the old leader
 * rejoins later. Until some server leads again (as it reports itself) nobody can be granted anything, so the election
 * is an outage for everyone: the liveness bound counts from the moment a leader is back, whatever the election took.
 */
const leaderLoss: FaultInjector = async (run) => {
  const leaderOf = required(run.fixture.leader, `${run.fixture.backend} has no leader to kill`);
  const leader = await leaderOf();
  const scope = { outage: false, scope: EVERYONE };
  const killedAt = markFault(run, "leader-loss", "fault", scope);
  await leader.kill();
  const election = { outage: true, scope: EVERYONE };
  markFault(run, "leader-election", "fault", election, killedAt);
  const elected = untilSomeoneLeads(leaderOf).then(() => markFault(run, "leader-election", "fault-end", election));
  await sleep(run.fixture.restartDownMs);
  await leader.start();
  await elected;
  markFault(run, "leader-loss", "fault-end", scope);
};

/** Resolves once `leaderOf` names a leader, or after `ELECTION_LIMIT_MS` (the row then shows who starved meanwhile). */
async function untilSomeoneLeads(leaderOf: () => Promise<unknown>): Promise<void> {
  await pollFor(() => leaderOf().catch(() => undefined), ELECTION_LIMIT_MS, "no leader").catch(() => undefined);
}

const REDIS_KEYS = new RedisKeyLayout(DEFAULT_REDIS_LOCK_OPTIONS.prefix);

/** Resolves once `server` shows `key`'s lock free: no record, a free one, or a lease past the deadline on its clock. */
async function shownFree(server: RedisServer, key: string, timeoutMs: number): Promise<void> {
  const name = REDIS_KEYS.lockKey(key);
  const free = async () => {
    const [record, [seconds, micros]] = await Promise.all([server.command("GET", name), server.command("TIME") as Promise<[string, string]>]);
    const parsed = parseLockRecord(record as string | null);
    const free = record === null || parsed?.free === true || (parsed !== undefined && parsed.deadlineMs <= Number(seconds) * 1000 + Number(micros) / 1000);
    return free ? true : undefined;
  };
  await pollFor(free, timeoutMs, `${server.name} still shows ${name} held`);
}

/** The first event from index `from` of the history on that matches, waiting up to `timeoutMs` for one. */
async function seen(run: RowRun, from: number, match: (event: HistoryEvent) => boolean, timeoutMs: number): Promise<HistoryEvent | undefined> {
  return run.log.events.slice(from).find(match) ?? (await run.log.next(match, timeoutMs));
}

/**
 * Cuts the replica off (its link to the master re-routed through `link`, then black-holed) until the leases it has
 * ran out and it shows the key free; returns the first lease only the master then granted or renewed, or the first
 * acquisition it refused because no replica acknowledged it.
 */
async function lagReplica(run: RowRun, servers: RedisSentinelSet, replica: RedisServer, link: TcpProxy) {
  await servers.replicate(replica, link.port);
  link.blackhole();
  await shownFree(replica, run.key, run.fixture.ttlMs + 10_000);
  const freeAt = machineNow();
  // A lease is dated from its request: one whose deadline is more than a TTL after `freeAt` exists on the master only.
  const masterOnly = (event: HistoryEvent): event is Of<"acquired" | "valid" | "acquire-failed"> =>
    ((event.type === "acquired" || event.type === "valid") && event.validUntil - run.fixture.ttlMs > freeAt) || event.type === "acquire-failed";
  return required(await run.log.next(masterOnly, 10_000), "no lease was taken or refused on the master while the replica lagged");
}

/**
 * SIGKILLs the master; once every Sentinel names the replica, starts the old master again and waits until the
 * Sentinels have settled with it as the new master's replica (or on whatever roles a failover of their own left).
 */
async function failOver(servers: RedisSentinelSet, master: RedisServer, replica: RedisServer): Promise<void> {
  await master.kill();
  await servers.promoted(replica);
  await master.start();
  await servers.settled();
}

/**
 * The failure Redis replication allows: the replica falls behind until it shows the key free, the master alone grants
 * or renews a lease (or refuses one no replica acknowledged), and its holder keeps working under it (its critical
 * section held open, its watchdog running) while the master is SIGKILLed and the Sentinels promote the replica. The
 * holder goes on once another holder wrote or it learnt that it lost the lock.
 */
const masterFailover: FaultInjector = async (run) => {
  const { servers, waitForReplicas } = required(run.fixture.sentinel, `${run.fixture.backend} has no Sentinels`);
  // The roles as the Sentinels settled on them: they may have failed over on their own since the last injection.
  const { master, replica } = await servers.settled();
  await using link = await startTcpProxy(master.port);
  // Workers that wait for a replica's acknowledgement can get no lock while it lags: for them that is an outage.
  const lag = { outage: waitForReplicas > 0, scope: EVERYONE };
  markFault(run, "replica-lag", "fault", lag);
  const lease = await lagReplica(run, servers, replica, link);
  const holder = lease.type === "acquire-failed" ? undefined : { worker: run.workers.find((w) => w.name === processOf(lease.worker)), hold: lease.hold };
  const from = run.log.events.length;
  holder?.worker?.holdOn(holder.hold);
  const scope = { outage: true, scope: EVERYONE };
  markFault(run, "master-failover", "fault", scope);
  markFault(run, "replica-lag", "fault-end", lag);
  try {
    // The replica stays cut off (its reconnects are refused), and no proxy socket outlives the master's death.
    await link.close();
    await failOver(servers, master, replica);
    markFault(run, "master-failover", "fault-end", scope);
    if (holder === undefined) return;
    const overtakenOrTold = (event: HistoryEvent) =>
      (event.type === "write" && event.accepted && event.hold !== holder.hold) ||
      ((event.type === "lost" || event.type === "cs-end") && event.hold === holder.hold);
    await seen(run, from, overtakenOrTold, 10_000);
  } finally {
    holder?.worker?.goOn();
  }
};

export const FAULT_INJECTORS: Readonly<Record<FaultName, FaultInjector>> = Object.freeze({
  "holder-sigkill": holderSigkill,
  "holder-sigstop": holderSigstop,
  "server-restart": serverRestart,
  "network-cut": networkCut,
  "minority-loss": redlockLoss("minority-loss", 2, false),
  "majority-loss": redlockLoss("majority-loss", 3, true),
  "leader-loss": leaderLoss,
  "master-failover": masterFailover,
});
