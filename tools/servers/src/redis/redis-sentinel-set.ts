import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, settleAll, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { RedisServer } from "./redis-server.js";

/** The master name the Sentinels monitor. */
export const SENTINEL_MASTER_NAME = "distlock-master";

/** Options of {@link startRedisSentinelSet}. */
export interface RedisSentinelSetOptions {
  /** Sentinel processes; a failover needs a majority of them to agree (the quorum). @default 1 */
  readonly sentinels?: number;
  /** Sentinel's `down-after-milliseconds`: how long the master must be unreachable before a Sentinel counts it down. @default 1000 */
  readonly downAfterMs?: number;
  /** Sentinel's `failover-timeout`: bounds each step of a failover; a failed one is retried after twice this. @default 180000 (Redis's own) */
  readonly failoverTimeoutMs?: number;
}

export const DEFAULT_REDIS_SENTINEL_SET_OPTIONS: Readonly<Required<RedisSentinelSetOptions>> = Object.freeze({
  sentinels: 1,
  downAfterMs: 1_000,
  failoverTimeoutMs: 180_000,
});

const WAIT_TIMEOUT_MS = 20_000;
const POLL_MS = 50;
/** Sentinel sends INFO to a master and its replicas this often (`SENTINEL_INFO_PERIOD`): how it learns of a replica. */
const SENTINEL_INFO_PERIOD_MS = 10_000;
/** Sentinels announce themselves (and the configuration they know) on the servers' hello channel this often. */
const SENTINEL_HELLO_PERIOD_MS = 2_000;
/** Room for a loaded machine on top of Sentinel's own timers (its timer events run late, a poll here takes longer). */
const LOAD_SLACK_MS = 5_000;

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = WAIT_TIMEOUT_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (performance.now() > deadline) throw new TestServerError(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Resolves once `replica` reports its link to the master on `port` up. */
function linked(replica: RedisServer, port: number): Promise<void> {
  const up = async () =>
    (await infoField(replica, "replication", "master_port")) === String(port) && (await infoField(replica, "replication", "master_link_status")) === "up";
  return until(`${replica.name} did not link to port ${port}`, up);
}

/** Resolves once `server` reports a replica in sync with it. */
function hasReplicaInSync(server: RedisServer): Promise<void> {
  const online = async () => /slave0:.*state=online/.test(String(await server.command("INFO", "replication")));
  return until(`no replica of ${server.name} came online`, online);
}

/** One `field:value` line of an INFO reply. */
async function infoField(server: RedisServer, section: string, field: string): Promise<string | undefined> {
  return new RegExp(`^${field}:(.*)\r?$`, "m").exec(String(await server.command("INFO", section)))?.[1];
}

/** A flat `[field, value, …]` reply as a map. */
function fieldsOf(reply: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(reply[i] as string, reply[i + 1] as string);
  return fields;
}

/** Which data server is the master and which its replica. */
export interface SentinelRoles {
  readonly master: RedisServer;
  readonly replica: RedisServer;
}

/** A master, one replica and Sentinels watching them (quorum: a majority), all redis-server processes without persistence. */
export class RedisSentinelSet implements AsyncDisposable {
  /** The master once the set had started (see {@link startRedisSentinelSet}); after a failover, {@link roles} says which server is which. */
  readonly master: RedisServer;
  /** The replica once the set had started. */
  readonly replica: RedisServer;
  /** The first Sentinel. */
  readonly sentinel: RedisServer;
  readonly sentinels: readonly RedisServer[];
  /** `redis+sentinel://127.0.0.1:<sentinel port>,…/distlock-master` */
  readonly url: string;

  /**
   * How long {@link settled} waits, from Sentinel's own timers: a master it takes for down (`down-after-milliseconds`), a
   * failover, retried once after twice `failover-timeout` if its election failed, a replica learnt from the master's
   * INFO, a configuration spread by hello messages, plus room for a loaded machine.
   */
  readonly settleTimeoutMs: number;

  constructor(master: RedisServer, replica: RedisServer, sentinels: readonly RedisServer[], options: RedisSentinelSetOptions = {}) {
    const settings = { ...DEFAULT_REDIS_SENTINEL_SET_OPTIONS, ...options };
    this.master = master;
    this.replica = replica;
    this.sentinels = Object.freeze([...sentinels]);
    this.sentinel = sentinels[0] as RedisServer;
    this.url = `redis+sentinel://${sentinels.map((s) => `${s.host}:${s.port}`).join(",")}/${SENTINEL_MASTER_NAME}`;
    this.settleTimeoutMs = settings.downAfterMs + 2 * settings.failoverTimeoutMs + SENTINEL_INFO_PERIOD_MS + SENTINEL_HELLO_PERIOD_MS + LOAD_SLACK_MS;
  }

  /** The port a Sentinel (the first unless given) currently names as the master's. */
  masterPort(sentinel: RedisServer = this.sentinel): Promise<number> {
    return sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_MASTER_NAME).then((reply) => Number((reply as string[])[1]));
  }

  /** Which of the two data servers the first Sentinel names as the master now, and the other one. */
  async roles(): Promise<SentinelRoles> {
    const port = await this.masterPort();
    return port === this.replica.port ? { master: this.replica, replica: this.master } : { master: this.master, replica: this.replica };
  }

  /** Resolves once every Sentinel names `server` as the master (after a failover, once all of them switched). */
  async promoted(server: RedisServer, timeoutMs = this.settleTimeoutMs): Promise<void> {
    const all = async () => (await Promise.all(this.sentinels.map((s) => this.masterPort(s)))).every((port) => port === server.port);
    await until(`the Sentinels did not all name ${server.name} as the master`, all, timeoutMs);
  }

  /** Makes `replica` replicate from `port` on 127.0.0.1 (a master, or a proxy in front of one); resolves once its link is up. */
  async replicate(replica: RedisServer, port: number): Promise<void> {
    await replica.command("REPLICAOF", "127.0.0.1", port);
    await linked(replica, port);
  }

  /**
   * Resolves with the roles once the Sentinels have settled on them: every Sentinel names the same master, counts it
   * up (flags `master` alone: not down, no failover under way) and has had a PING reply from it since it named it, and
   * knows the other Sentinels; the other server replicates from that master, in sync, and every Sentinel lists it as
   * an up replica (flags `slave` alone), so a failover now would promote it.
   *
   * The roles are read here, not assumed: Sentinels fail over on their own. On a switch a Sentinel gives the new
   * master `down-after-milliseconds` (1 s in the fault matrix) to answer a PING, over a link it reconnects at most once
   * a second, and clears its failover timer; when that PING reply is late, the Sentinels take the new master for down
   * and fail back at once (a third of the sets in `bin/soak-sentinel-set.js` did, loaded or not). Once they agree, a
   * server still acting as master on its own is made the master's replica here, as Sentinel itself would
   * (`+convert-to-slave`) only seconds later.
   */
  async settled(timeoutMs = this.settleTimeoutMs): Promise<SentinelRoles> {
    const deadline = performance.now() + timeoutMs;
    let waitingFor = "";
    for (;;) {
      const step = await this.#settleStep().catch((error: unknown) => (error as Error).message);
      if (typeof step !== "string") return step;
      waitingFor = step;
      if (performance.now() > deadline) throw new TestServerError(`the Sentinels did not settle within ${timeoutMs} ms: ${waitingFor}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The settled roles, or what is not settled yet (taking the one step the harness may take: re-pointing a replica). */
  async #settleStep(): Promise<SentinelRoles | string> {
    const views = await Promise.all(
      this.sentinels.map(async (sentinel) => ({
        sentinel,
        master: fieldsOf((await sentinel.command("SENTINEL", "MASTER", SENTINEL_MASTER_NAME)) as string[]),
        replicas: ((await sentinel.command("SENTINEL", "REPLICAS", SENTINEL_MASTER_NAME)) as string[][]).map(fieldsOf),
      })),
    );
    const named = views.map((view) => view.master.get("port"));
    const master = [this.master, this.replica].find((server) => String(server.port) === named[0]);
    if (master === undefined || named.some((port) => port !== named[0])) return `the Sentinels name the masters ${named.join(", ")}`;
    const replica = master === this.master ? this.replica : this.master;
    for (const { sentinel, master: view } of views) {
      if (view.get("flags") !== "master") return `${sentinel.name} flags ${master.name} ${view.get("flags")}`;
      // Reset to the time it named the master (or sent an unanswered PING); 0 once a PING was answered since.
      if (view.get("last-ping-sent") !== "0") return `${sentinel.name} has had no PING reply from ${master.name} for ${view.get("last-ping-sent")} ms`;
      const others = Number(view.get("num-other-sentinels"));
      if (others < this.sentinels.length - 1) return `${sentinel.name} knows ${others} of the other ${this.sentinels.length - 1} Sentinels`;
    }
    const [role, masterPort, link] = await Promise.all(["role", "master_port", "master_link_status"].map((field) => infoField(replica, "replication", field)));
    if (role !== "slave" || masterPort !== String(master.port)) {
      await replica.command("REPLICAOF", "127.0.0.1", master.port);
      return `${replica.name} was not replicating from ${master.name} (role ${role}, master port ${masterPort}): made it`;
    }
    if (link !== "up") return `${replica.name}'s link to ${master.name} is ${link}`;
    if (!/slave0:.*state=online/.test(String(await master.command("INFO", "replication")))) return `${replica.name} is not in sync with ${master.name}`;
    for (const { sentinel, replicas } of views) {
      const flags = replicas.find((r) => r.get("port") === String(replica.port))?.get("flags");
      if (flags !== "slave") return `${sentinel.name} lists ${replica.name} ${flags === undefined ? "as no replica" : `with flags ${flags}`}`;
    }
    return { master, replica };
  }

  /** Resolves once `server` reports a replica in sync with it. */
  replicaInSync(server: RedisServer = this.master): Promise<void> {
    return hasReplicaInSync(server);
  }

  close(): Promise<void> {
    return settleAll([...this.sentinels, this.replica, this.master].map((server) => server.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Starts a master, a replica in sync with it and Sentinels monitoring them, each on a free port in a fresh temp dir, and
 * resolves once the Sentinels have settled (see {@link RedisSentinelSet.settled}): a failover could start at once.
 *
 * The Sentinels start only once the replica's link is up. A Sentinel learns of replicas from the master's INFO, which
 * it sends on connecting and then every 10 s: one whose first INFO came before the replica linked would not know of
 * it for 10 s more.
 */
export async function startRedisSentinelSet(options: RedisSentinelSetOptions = {}): Promise<RedisSentinelSet> {
  const settings = { ...DEFAULT_REDIS_SENTINEL_SET_OPTIONS, ...options };
  if (!Number.isInteger(settings.sentinels) || settings.sentinels < 1) {
    throw new TestServerError(`startRedisSentinelSet({ sentinels }) needs a positive integer; got ${settings.sentinels}.`);
  }
  const command = binaryPath(await ensureServerBinaries(["redis"]), "redis-server");
  const started: RedisServer[] = [];
  const start = (args: readonly string[], sentinelConfig?: string) =>
    retryOnAddressInUse(async () => {
      const [port] = (await allocatePorts(1)) as [number];
      const dataDir = await createTempDir(sentinelConfig === undefined ? "redis" : "redis-sentinel");
      let leadingArgs: string[] = [];
      if (sentinelConfig !== undefined) {
        leadingArgs = [join(dataDir, "sentinel.conf")];
        await writeFile(leadingArgs[0] as string, sentinelConfig);
      }
      const server = await startOrClose(new RedisServer({ port, dataDir, command, args, leadingArgs, startTimeoutMs: 20_000 }));
      started.push(server);
      return server;
    });
  try {
    // A full sync starts at once (Redis waits 5 s by default for more replicas to share a diskless transfer).
    const data = ["--repl-diskless-sync-delay", "0"];
    const master = await start(data);
    const replica = await start([...data, "--replicaof", master.host, String(master.port)]);
    await linked(replica, master.port);
    await hasReplicaInSync(master);
    const quorum = Math.floor(settings.sentinels / 2) + 1;
    const config = [
      `sentinel monitor ${SENTINEL_MASTER_NAME} ${master.host} ${master.port} ${quorum}`,
      `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${settings.downAfterMs}`,
      `sentinel failover-timeout ${SENTINEL_MASTER_NAME} ${settings.failoverTimeoutMs}`,
      "",
    ].join("\n");
    const sentinels = await Promise.all(Array.from({ length: settings.sentinels }, () => start(["--sentinel"], config)));
    // The Sentinels may already have failed over on their own (see settled()): the set names the roles they settled on.
    const roles = await new RedisSentinelSet(master, replica, sentinels, settings).settled();
    return new RedisSentinelSet(roles.master, roles.replica, sentinels, settings);
  } catch (error) {
    await settleAll(started.map((server) => server.close())).catch(() => undefined);
    throw error;
  }
}
