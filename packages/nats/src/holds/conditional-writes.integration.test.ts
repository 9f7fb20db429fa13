import { startNatsCluster } from "@distlock/test-servers";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { openBucket } from "../connection/open-bucket.js";
import { writeIfAt } from "./conditional-writes.js";
import { NEVER_WRITTEN, versionOf } from "./key-version.js";

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
      return { kv, attemptKv: kv, js, bucket, commandTimeoutMs: 5_000 };
    }),
  );
}

describe("conditional writes on an R3 bucket", () => {
  it("store exactly one of several writes on the same revision sent at once through different servers", async () => {
    const clients = await clientsOnEveryServer("cas-race");
    const [first] = clients;
    let stored = 0;
    for (let round = 0; round < 40; round++) {
      const from = versionOf((await first?.kv.get("k")) ?? null);
      const outcomes = await Promise.all(
        clients.map((client, index) => {
          return writeIfAt(client, "k", { round, index }, from);
        }),
      );
      const written = outcomes.filter((outcome) => outcome !== undefined);
      expect(written).toHaveLength(1);
      expect((await first?.kv.get("k"))?.revision).toBe(written[0]?.revision);
      stored++;
    }
    expect(stored).toBe(40);
  });

  it("store a write whose message id the duplicate window knows from a message that is not a write of the key", async () => {
    const [client] = await clientsOnEveryServer("phantom-id");
    if (client === undefined) throw new Error("no client");
    await writeIfAt(client, "k", { content: "first" }, NEVER_WRITTEN);
    const from = versionOf(await client.kv.get("k"));
    // What a new stream leader can keep after the old one was killed: the id of the change from `from` in its duplicate
    // window, without the message. Another key's message under that id stands in for it.
    await client.js.publish("$KV.phantom-id.other", "x", { msgID: `k:${from.writeId}` });
    const written = await writeIfAt(client, "k", { content: "second" }, from);
    expect(written?.revision).toBeGreaterThan(from.revision);
    expect((await client.kv.get("k"))?.revision).toBe(written?.revision);
  });
});
