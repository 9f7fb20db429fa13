import { randomUUID } from "node:crypto";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { killAndClose, retryOnAddressInUse, startTogether } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { httpJson } from "../protocol/http-json.js";
import { DEFAULT_NATS_OPTIONS, type NatsOptions } from "./nats-options.js";
import { NatsServer } from "./nats-server.js";

/** What `/jsz?accounts=true&streams=true` reports of the streams, as far as `streamLeader` reads it. */
interface JetStreamReport {
  readonly account_details?: ReadonlyArray<{
    readonly stream_detail?: ReadonlyArray<{ readonly name?: string; readonly cluster?: { readonly leader?: string } }>;
  }>;
}

/** A JetStream cluster of nats-servers on 127.0.0.1, each routing to all the others. */
export class NatsCluster implements AsyncDisposable {
  readonly servers: readonly NatsServer[];
  /** `nats://127.0.0.1:<p1>,127.0.0.1:<p2>,...` */
  readonly url: string;

  constructor(servers: readonly NatsServer[]) {
    this.servers = Object.freeze([...servers]);
    this.url = `nats://${servers.map((server) => `${server.host}:${server.port}`).join(",")}`;
  }

  /**
   * The server that leads `stream` (a KV bucket's is `KV_<bucket>`) as it reports itself in its JetStream monitoring;
   * undefined while none does (a follower may still name a leader that is gone).
   */
  async streamLeader(stream: string): Promise<NatsServer | undefined> {
    for (const server of this.servers) {
      if (!server.running) continue;
      const report = (await httpJson(`http://127.0.0.1:${server.monitorPort}/jsz?accounts=true&streams=true`, { timeoutMs: 1_000 }).catch(() => undefined)) as
        | JetStreamReport
        | undefined;
      const leader = report?.account_details?.flatMap((account) => account.stream_detail ?? []).find((detail) => detail.name === stream)?.cluster?.leader;
      if (leader === server.serverName) return server;
    }
    return undefined;
  }

  /** Kills every server and removes their store dirs. */
  close(): Promise<void> {
    return killAndClose(this.servers);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Starts a `size`-server JetStream cluster and waits until every server reports healthy. */
export async function startNatsCluster(size = 3, options: NatsOptions = {}): Promise<NatsCluster> {
  if (!Number.isInteger(size) || size < 1) throw new TestServerError(`startNatsCluster(size) needs a positive integer size; got ${size}.`);
  if (options.tls === true) throw new TestServerError("startNatsCluster does not serve TLS; use startNats({ tls: true }) for a TLS server.");
  const settings = { ...DEFAULT_NATS_OPTIONS, ...options };
  const command = binaryPath(await ensureServerBinaries(["nats"]), "nats-server");
  return retryOnAddressInUse(async () => {
    const ports = await allocatePorts(3 * size);
    const routes = Array.from({ length: size }, (_, i) => `nats://127.0.0.1:${ports[3 * i + 2]}`);
    const name = `distlock-${randomUUID().slice(0, 8)}`;
    const servers: NatsServer[] = [];
    for (let i = 0; i < size; i++) {
      servers.push(
        new NatsServer({
          serverName: `n${i}`,
          clientPort: ports[3 * i] as number,
          monitorPort: ports[3 * i + 1] as number,
          dataDir: await createTempDir("nats"),
          command,
          settings,
          cluster: { name, routePort: ports[3 * i + 2] as number, routes },
        }),
      );
    }
    const cluster = new NatsCluster(servers);
    try {
      await startTogether(servers);
      return cluster;
    } catch (error) {
      await cluster.close().catch(() => undefined);
      throw error;
    }
  });
}
