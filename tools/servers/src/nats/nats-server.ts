import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { createEtcdCertificates, type EtcdCertificates } from "../etcd/etcd-certificates.js";
import { ManagedServer } from "../process/managed-server.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { httpJson } from "../protocol/http-json.js";
import { DEFAULT_NATS_OPTIONS, type NatsOptions } from "./nats-options.js";

/** Files a client needs for a server that serves TLS and requires client certificates. */
export interface NatsClientTlsFiles {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** Everything needed to run one nats-server with JetStream. */
export interface NatsServerConfig {
  readonly serverName: string;
  readonly clientPort: number;
  /** The HTTP monitoring port, for readiness (`/healthz`). */
  readonly monitorPort: number;
  readonly dataDir: string;
  /** Absolute path of nats-server. */
  readonly command: string;
  readonly settings: Readonly<Required<NatsOptions>>;
  /** For a cluster member: its cluster name, its route port and every member's route URL. */
  readonly cluster?: { readonly name: string; readonly routePort: number; readonly routes: readonly string[] };
  /** Serve clients over TLS with these, requiring client certificates. */
  readonly certificates?: EtcdCertificates;
}

/** One nats-server with JetStream on 127.0.0.1 (its store in the data dir), alone or as a cluster member. */
export class NatsServer extends ManagedServer {
  readonly serverName: string;
  readonly monitorPort: number;
  /** `nats://127.0.0.1:<clientPort>` */
  readonly url: string;
  /** What a client needs to connect when the server serves TLS (started with `tls: true`). */
  readonly clientTls: NatsClientTlsFiles | undefined;

  constructor(config: NatsServerConfig) {
    const { clientPort, monitorPort, dataDir, settings, cluster, certificates } = config;
    super({
      name: `nats:${config.serverName}:${clientPort}`,
      port: clientPort,
      reservedPorts: [clientPort, monitorPort, ...(cluster === undefined ? [] : [cluster.routePort])],
      dataDir,
      logFile: join(dataDir, "nats.log"),
      command: config.command,
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        "--addr", "127.0.0.1",
        "--port", String(clientPort),
        "--http_port", String(monitorPort),
        "--server_name", config.serverName,
        "--jetstream",
        "--store_dir", join(dataDir, "jetstream"),
        ...(cluster === undefined ? [] : clusterArgs(cluster)),
        ...(certificates === undefined ? [] : tlsArgs(certificates)),
        ...settings.args,
      ],
      stopSignal: "SIGTERM",
      startTimeoutMs: settings.startTimeoutMs,
      stopTimeoutMs: 10_000,
    });
    this.serverName = config.serverName;
    this.monitorPort = monitorPort;
    this.url = `nats://127.0.0.1:${clientPort}`;
    this.clientTls =
      certificates === undefined ? undefined : { caFile: certificates.caFile, certFile: join(dataDir, "client.crt"), keyFile: join(dataDir, "client.key") };
  }

  /** Ready when `/healthz` answers ok: JetStream is up and, in a cluster, this server knows the meta leader. */
  protected override async probe(): Promise<boolean> {
    const body = (await httpJson(`http://127.0.0.1:${this.monitorPort}/healthz`, { timeoutMs: 1_000 })) as { status?: unknown };
    return body.status === "ok";
  }
}

function clusterArgs(cluster: NonNullable<NatsServerConfig["cluster"]>): string[] {
  // biome-ignore format: flag/value pairs read better one pair per line
  return [
    "--cluster_name", cluster.name,
    "--cluster", `nats://127.0.0.1:${cluster.routePort}`,
    "--routes", cluster.routes.join(","),
  ];
}

function tlsArgs(certificates: EtcdCertificates): string[] {
  // biome-ignore format: flag/value pairs read better one pair per line
  return [
    "--tls",
    "--tlscert", certificates.serverCertFile,
    "--tlskey", certificates.serverKeyFile,
    "--tlscacert", certificates.caFile,
    "--tlsverify",
  ];
}

/** Starts a single nats-server with JetStream on free ports in a fresh temp dir. */
export async function startNats(options: NatsOptions = {}): Promise<NatsServer> {
  const settings = { ...DEFAULT_NATS_OPTIONS, ...options };
  const binaries = await ensureServerBinaries(["nats"]);
  const command = binaryPath(binaries, "nats-server");
  return retryOnAddressInUse(async () => {
    const [clientPort, monitorPort] = (await allocatePorts(2)) as [number, number];
    const dataDir = await createTempDir("nats");
    // The same throwaway CA, server and client certificates as a TLS etcd member's: client.crt/.key sit in the dir.
    const certificates = settings.tls ? await createEtcdCertificates(dataDir, binaryPath(binaries, "openssl")) : undefined;
    return startOrClose(new NatsServer({ serverName: "n0", clientPort, monitorPort, dataDir, command, settings, certificates }));
  });
}
