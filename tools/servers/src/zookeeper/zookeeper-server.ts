import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { ManagedServer } from "../process/managed-server.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { fourLetterWord } from "../protocol/four-letter-word.js";
import { DEFAULT_ZOOKEEPER_OPTIONS, type ZooKeeperOptions } from "./zookeeper-options.js";

const ZOOKEEPER_JAR = "/usr/share/java/zookeeper.jar";
const SLF4J_SIMPLE_JAR = "/usr/share/java/slf4j-simple.jar";
const MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

/** One member of an ensemble as every member's `zoo.cfg` names it. */
export interface ZooKeeperPeer {
  /** `myid`, 1-based. */
  readonly id: number;
  readonly quorumPort: number;
  readonly electionPort: number;
}

/** Everything needed to run one ZooKeeper server. */
export interface ZooKeeperServerConfig {
  readonly clientPort: number;
  readonly dataDir: string;
  /** Absolute path of java. */
  readonly java: string;
  readonly settings: Readonly<Required<ZooKeeperOptions>>;
  /** This server and its peers; absent for a standalone server. */
  readonly ensemble?: { readonly self: ZooKeeperPeer; readonly peers: readonly ZooKeeperPeer[] };
}

/** The `zoo.cfg` of one server: small ticks so sessions can be short, no admin server, every four-letter word allowed. */
function zooCfg(config: ZooKeeperServerConfig): string {
  const { settings, ensemble } = config;
  const lines = [
    `tickTime=${settings.tickTimeMs}`,
    "initLimit=50",
    "syncLimit=20",
    `dataDir=${join(config.dataDir, "data")}`,
    `clientPort=${config.clientPort}`,
    "clientPortAddress=127.0.0.1",
    `minSessionTimeout=${2 * settings.tickTimeMs}`,
    `maxSessionTimeout=${settings.maxSessionTimeoutMs}`,
    "admin.enableServer=false",
    "4lw.commands.whitelist=*",
    "maxClientCnxns=0",
    // Like PostgreSQL's fsync=off here: committed data survives kill(), not an OS crash, and a busy disk cannot stall
    // every write (session creation included) behind a slow fsync.
    "forceSync=no",
    ...(ensemble?.peers.map((peer) => `server.${peer.id}=127.0.0.1:${peer.quorumPort}:${peer.electionPort}`) ?? []),
    ...settings.config,
  ];
  return `${lines.join("\n")}\n`;
}

/** One ZooKeeper server (Debian's package, run from its jar), standalone or a member of an ensemble. */
export class ZooKeeperServer extends ManagedServer {
  /** `myid` within its ensemble; 0 for a standalone server. */
  readonly serverId: number;
  /** `127.0.0.1:<clientPort>`, the connection string of this server alone. */
  readonly connectString: string;
  /** `zookeeper://127.0.0.1:<clientPort>` */
  readonly url: string;

  constructor(config: ZooKeeperServerConfig) {
    const { clientPort, dataDir, ensemble } = config;
    mkdirSync(join(dataDir, "data"), { recursive: true });
    if (ensemble !== undefined) writeFileSync(join(dataDir, "data", "myid"), `${ensemble.self.id}\n`);
    const cfgFile = join(dataDir, "zoo.cfg");
    writeFileSync(cfgFile, zooCfg(config));
    const peerPorts = ensemble === undefined ? [] : [ensemble.self.quorumPort, ensemble.self.electionPort];
    super({
      name: `zookeeper:${ensemble?.self.id ?? 0}:${clientPort}`,
      port: clientPort,
      reservedPorts: [clientPort, ...peerPorts],
      dataDir,
      logFile: join(dataDir, "zookeeper.log"),
      command: config.java,
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        "-Xmx192m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Dzookeeper.jmx.log4j.disable=true",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp", `${ZOOKEEPER_JAR}:${SLF4J_SIMPLE_JAR}`,
        MAIN_CLASS,
        cfgFile,
      ],
      stopSignal: "SIGTERM",
      startTimeoutMs: config.settings.startTimeoutMs,
      stopTimeoutMs: 10_000,
    });
    this.serverId = ensemble?.self.id ?? 0;
    this.connectString = `127.0.0.1:${clientPort}`;
    this.url = `zookeeper://${this.connectString}`;
  }

  /** What `srvr` reports as this server's mode: "standalone", "leader", "follower", or undefined while it does not serve. */
  async mode(timeoutMs = 1_000): Promise<string | undefined> {
    const answer = await fourLetterWord(this.port, "srvr", timeoutMs);
    return /^Mode: (\w+)/m.exec(answer)?.[1];
  }

  /** Ready once `srvr` reports a mode: a member only does so once it has joined a quorum. */
  protected override async probe(): Promise<boolean> {
    return (await this.mode()) !== undefined;
  }
}

/** Starts a standalone ZooKeeper on a free port in a fresh temp dir. */
export async function startZooKeeper(options: ZooKeeperOptions = {}): Promise<ZooKeeperServer> {
  const settings = { ...DEFAULT_ZOOKEEPER_OPTIONS, ...options };
  const java = binaryPath(await ensureServerBinaries(["zookeeper"]), "java");
  return retryOnAddressInUse(async () => {
    const [clientPort] = (await allocatePorts(1)) as [number];
    const dataDir = await createTempDir("zookeeper");
    return startOrClose(new ZooKeeperServer({ clientPort, dataDir, java, settings }));
  });
}
