import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { ManagedServer } from "../process/managed-server.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { httpJson } from "../protocol/http-json.js";
import { createEtcdCertificates, type EtcdCertificates, type EtcdClientTls } from "./etcd-certificates.js";
import { DEFAULT_ETCD_OPTIONS, type EtcdOptions } from "./etcd-options.js";

/** Everything needed to run one etcd member. */
export interface EtcdServerConfig {
  readonly memberName: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  /** `--initial-cluster`, e.g. `m0=http://127.0.0.1:17001,m1=...`. */
  readonly initialCluster: string;
  readonly clusterToken: string;
  /** Absolute path of etcd. */
  readonly command: string;
  readonly settings: Readonly<Required<EtcdOptions>>;
  /** Serve clients over TLS with these, requiring client certificates. */
  readonly certificates?: EtcdCertificates;
}

/** What a member says about itself and the cluster (`/v3/maintenance/status`). */
export interface EtcdMemberStatus {
  /** This member's id (a uint64 as a decimal string). */
  readonly memberId: string;
  /** The id of the leader this member knows of; "0" when it knows none. */
  readonly leaderId: string;
  readonly raftTerm: number;
}

interface StatusResponse {
  readonly header?: { readonly member_id?: string; readonly raft_term?: string };
  readonly leader?: string;
}

/** One etcd member (v3 API, no auth; plain HTTP, or TLS with client certificates). */
export class EtcdServer extends ManagedServer {
  readonly memberName: string;
  readonly peerPort: number;
  /** `http://127.0.0.1:<clientPort>`, or `https://` when it serves TLS. */
  readonly endpoint: string;
  /** `[endpoint]`, the form the etcd3 client takes. */
  readonly endpoints: readonly string[];
  /** `etcd://127.0.0.1:<clientPort>`, or `etcds://` when it serves TLS. */
  readonly url: string;
  /** What a client needs to connect when the member serves TLS (started with `tls: true`). */
  readonly clientTls: EtcdClientTls | undefined;

  constructor(config: EtcdServerConfig) {
    const { clientPort, peerPort, dataDir, settings, certificates } = config;
    const clientUrl = `${certificates === undefined ? "http" : "https"}://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    super({
      name: `etcd:${config.memberName}:${clientPort}`,
      port: clientPort,
      reservedPorts: [clientPort, peerPort],
      dataDir,
      logFile: join(dataDir, "etcd.log"),
      command: config.command,
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        "--name", config.memberName,
        "--data-dir", join(dataDir, "etcd"),
        "--listen-client-urls", clientUrl,
        "--advertise-client-urls", clientUrl,
        "--listen-peer-urls", peerUrl,
        "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", config.initialCluster,
        "--initial-cluster-state", "new",
        "--initial-cluster-token", config.clusterToken,
        "--heartbeat-interval", String(settings.heartbeatIntervalMs),
        "--election-timeout", String(settings.electionTimeoutMs),
        "--logger", "zap",
        "--log-outputs", "stderr",
        ...(certificates === undefined ? [] : tlsArgs(certificates)),
        ...settings.args,
      ],
      stopSignal: "SIGTERM",
      startTimeoutMs: settings.startTimeoutMs,
      stopTimeoutMs: 10_000,
    });
    this.memberName = config.memberName;
    this.peerPort = peerPort;
    this.endpoint = clientUrl;
    this.endpoints = Object.freeze([clientUrl]);
    this.url = `${certificates === undefined ? "etcd" : "etcds"}://127.0.0.1:${clientPort}`;
    this.clientTls = certificates?.client;
  }

  /** Asks this member for its id, its view of the leader and the raft term. */
  async status(timeoutMs = 1_000): Promise<EtcdMemberStatus> {
    const body = (await httpJson(`${this.endpoint}/v3/maintenance/status`, {
      method: "POST",
      body: {},
      timeoutMs,
      tls: this.clientTls,
    })) as StatusResponse;
    const memberId = body.header?.member_id;
    if (memberId === undefined) throw new TestServerError(`${this.name} answered a status without member_id.`);
    return { memberId, leaderId: body.leader ?? "0", raftTerm: Number(body.header?.raft_term ?? 0) };
  }

  /** Ready when `/health` says true, which etcd only does once the member has a leader. */
  protected override async probe(): Promise<boolean> {
    const body = (await httpJson(`${this.endpoint}/health`, { timeoutMs: 1_000, tls: this.clientTls })) as { health?: unknown };
    return body.health === "true";
  }
}

function tlsArgs(certificates: EtcdCertificates): string[] {
  // biome-ignore format: flag/value pairs read better one pair per line
  return [
    "--cert-file", certificates.serverCertFile,
    "--key-file", certificates.serverKeyFile,
    "--trusted-ca-file", certificates.caFile,
    "--client-cert-auth",
  ];
}

/** Starts a single-member etcd on free ports in a fresh temp dir. */
export async function startEtcd(options: EtcdOptions = {}): Promise<EtcdServer> {
  const settings = { ...DEFAULT_ETCD_OPTIONS, ...options };
  const binaries = await ensureServerBinaries(["etcd"]);
  const command = binaryPath(binaries, "etcd");
  return retryOnAddressInUse(async () => {
    const [clientPort, peerPort] = (await allocatePorts(2)) as [number, number];
    const dataDir = await createTempDir("etcd");
    const certificates = settings.tls ? await createEtcdCertificates(dataDir, binaryPath(binaries, "openssl")) : undefined;
    return startOrClose(
      new EtcdServer({
        memberName: "m0",
        clientPort,
        peerPort,
        dataDir,
        initialCluster: `m0=http://127.0.0.1:${peerPort}`,
        clusterToken: `distlock-${randomUUID()}`,
        command,
        settings,
        certificates,
      }),
    );
  });
}
