import { afterAll, describe, expect, it } from "vitest";
import { pollFor } from "../process/settle.js";
import { dynamodbCall } from "../protocol/dynamodb-call.js";
import { startDynalite } from "./dynalite-server.js";

const LOCKS_TABLE = {
  TableName: "locks",
  AttributeDefinitions: [{ AttributeName: "k", AttributeType: "S" }],
  KeySchema: [{ AttributeName: "k", KeyType: "HASH" }],
  BillingMode: "PAY_PER_REQUEST",
};

describe("dynalite", () => {
  const starting = startDynalite();
  const persistentStarting = startDynalite({ persistent: true });
  afterAll(async () => Promise.all([(await starting).close(), (await persistentStarting).close()]));

  it("answers on its own port, keeps tables in memory and forgets them when restarted", async () => {
    const server = await starting;
    expect(server.port).not.toBe(4567);
    await dynamodbCall(server.endpoint, "CreateTable", LOCKS_TABLE);
    expect(await dynamodbCall(server.endpoint, "ListTables", {})).toEqual({ TableNames: ["locks"] });
    await server.kill();
    await server.start();
    expect(await dynamodbCall(server.endpoint, "ListTables", {})).toEqual({ TableNames: [] });
  });

  it("persistent, keeps its tables and their items across a kill and a start on the same port", async () => {
    const server = await persistentStarting;
    const key = { TableName: "locks", Key: { k: { S: "a" } }, ConsistentRead: true };
    await dynamodbCall(server.endpoint, "CreateTable", LOCKS_TABLE);
    // dynalite answers CreateTable with the table CREATING and writes it ACTIVE a moment later: a kill before that write
    // leaves a CREATING table, which it reports as not found after the start.
    await pollFor(() => tableActive(server.endpoint), 5_000, "the table never became ACTIVE");
    await dynamodbCall(server.endpoint, "PutItem", { TableName: "locks", Item: { k: { S: "a" }, v: { N: "7" } } });
    await server.kill();
    await server.start();
    expect(await dynamodbCall(server.endpoint, "GetItem", key)).toEqual({ Item: { k: { S: "a" }, v: { N: "7" } } });
  });
});

async function tableActive(endpoint: string): Promise<true | undefined> {
  const described = (await dynamodbCall(endpoint, "DescribeTable", { TableName: "locks" })) as { Table?: { TableStatus?: string } };
  return described.Table?.TableStatus === "ACTIVE" ? true : undefined;
}
