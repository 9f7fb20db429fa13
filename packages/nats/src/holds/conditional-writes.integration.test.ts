import { startNatsCluster } from "@distlock/test-servers";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { openBucket } from "../connection/open-bucket.js";
import { writeIfAt } from "./conditional-writes.js";

const cluster = await startNatsCluster(3);
const connections: NatsConnection[] = [];
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await cluster.close();
});

/** One client per server, each with the R3 bucket open (created by all of them at once). */
async function clientsOnEveryServer(bucket: string) {
  return Promise.all(
    cluster.servers.map(async (server) => {
      const connection = await connect({ servers: [`127.0.0.1:${server.port}`] });
      connections.push(connection);
      const js = jetstream(connection, { timeout: 5_000 });
      const { kv } = await openBucket(connection, js, { bucket, replicas: 3, storage: "file", timeoutMs: 5_000 });
      return { kv, js, bucket };
    }),
  );
}

describe("conditional writes on an R3 bucket", () => {
  it("store exactly one of several writes on the same revision sent at once through different servers", async () => {
    const clients = await clientsOnEveryServer("cas-race");
    const [first] = clients;
    let stored = 0;
    for (let round = 0; round < 40; round++) {
      const revision = (await first?.kv.get("k"))?.revision ?? 0;
      const outcomes = await Promise.all(clients.map((client, index) => writeIfAt(client, "k", `${round}/${index}`, revision)));
      const written = outcomes.filter((outcome) => outcome !== undefined);
      expect(written).toHaveLength(1);
      expect((await first?.kv.get("k"))?.revision).toBe(written[0]);
      stored++;
    }
    expect(stored).toBe(40);
  });
});
