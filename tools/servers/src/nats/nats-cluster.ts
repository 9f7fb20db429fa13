import { randomUUID } from "node:crypto";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, settleAll, startTogether } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { DEFAULT_NATS_OPTIONS, type NatsOptions } from "./nats-options.js";
import { NatsServer } from "./nats-server.js";

/** A JetStream cluster of nats-servers on 127.0.0.1, each routing to all the others. */
export class NatsCluster implements AsyncDisposable {
  readonly servers: readonly NatsServer[];
  /** `nats://127.0.0.1:<p1>,127.0.0.1:<p2>,...` */
  readonly url: string;

  constructor(servers: readonly NatsServer[]) {
    this.servers = Object.freeze([...servers]);
    this.url = `nats://${servers.map((server) => `${server.host}:${server.port}`).join(",")}`;
  }

  /** Kills every server and removes their store dirs. */
  async close(): Promise<void> {
    await settleAll(this.servers.map((server) => server.kill()));
    await settleAll(this.servers.map((server) => server.close()));
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
