import type { Client } from "node-zookeeper-client";

/** Connects `client`; resolves once it has a session. */
export function connected(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.once("connected", () => resolve());
    client.connect();
  });
}

export function remove(client: Client, path: string): Promise<void> {
  return new Promise((resolve, reject) => client.remove(path, -1, (error) => (error === null ? resolve() : reject(error))));
}
