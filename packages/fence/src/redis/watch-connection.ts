import type { Cluster, Redis } from "ioredis";
import type { RedisClient } from "./fenced-script.js";

/**
 * WATCH belongs to a connection: any MULTI/EXEC or UNWATCH sent on it by another caller would commit or drop it. So
 * optimistic transactions run on a duplicate of the caller's client (`duplicate()`: the same server, options and
 * credentials), one per client, opened on first use, one transaction at a time, and disconnected when the client ends.
 */
export class WatchConnection {
  readonly #connection: RedisClient;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(client: RedisClient) {
    this.#connection = duplicate(client);
    client.once("end", () => this.#connection.disconnect());
  }

  /** Runs `use` once every earlier use has ended. */
  exclusive<T>(use: (connection: RedisClient) => Promise<T>): Promise<T> {
    const turn = this.#tail.then(() => use(this.#connection));
    this.#tail = turn.catch(() => undefined);
    return turn;
  }
}

function duplicate(client: RedisClient): RedisClient {
  return client.isCluster ? (client as Cluster).duplicate() : (client as Redis).duplicate();
}

const connections = new WeakMap<RedisClient, WatchConnection>();

/** The watch connection of `client`, opened on first use. */
export function watchConnectionOf(client: RedisClient): WatchConnection {
  let connection = connections.get(client);
  if (connection === undefined) {
    if (client.status === "end") throw new Error("Connection is closed.");
    connection = new WatchConnection(client);
    connections.set(client, connection);
  }
  return connection;
}
