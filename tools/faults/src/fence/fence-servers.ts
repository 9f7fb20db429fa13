import { startRedis } from "@distlock/test-servers";
import type { FenceKind, FenceServer, FenceTarget } from "./fenced-resource.js";

/** A resource that needs nothing started or prepared. */
function noServer(target: FenceTarget, close: () => Promise<void> = async () => undefined): FenceServer {
  return { target, prepare: async () => undefined, close, [Symbol.asyncDispose]: close };
}

async function startFenceServer(kind: FenceKind): Promise<FenceServer> {
  switch (kind) {
    case "postgres":
    case "mariadb":
    case "sqlite":
      return (await import("./sql-fence-server.js")).startSqlFence(kind);
    case "redis": {
      const server = await startRedis();
      return noServer({ kind: "redis", port: server.port }, () => server.close());
    }
    case "etcd":
      // The lock's own etcd: fencedTxn compares the lock's member key in the etcd it writes to.
      return noServer({ kind: "etcd" });
  }
}

/**
 * The resources' servers of a run, each started on first use and kept (never faulted) until the run ends. One that did
 * not start is started afresh on the next use (that row fails, the next may not).
 */
export class FenceServers implements AsyncDisposable {
  readonly #started = new Map<FenceKind, Promise<FenceServer>>();

  get(kind: FenceKind): Promise<FenceServer> {
    let server = this.#started.get(kind);
    if (server === undefined) {
      const starting = startFenceServer(kind);
      starting.catch(() => {
        if (this.#started.get(kind) === starting) this.#started.delete(kind);
      });
      server = starting;
      this.#started.set(kind, server);
    }
    return server;
  }

  async close(): Promise<void> {
    const started = [...this.#started.values()];
    this.#started.clear();
    await Promise.allSettled(started.map(async (server) => (await server).close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
