import { afterAll, describe, expect, it } from "vitest";
import { dynamodbCall } from "../protocol/dynamodb-call.js";
import { startDynalite } from "./dynalite-server.js";

describe("dynalite", () => {
  const starting = startDynalite();
  afterAll(async () => (await starting).close());

  it("answers on its own port, keeps tables in memory and forgets them when restarted", async () => {
    const server = await starting;
    expect(server.port).not.toBe(4567);
    await dynamodbCall(server.endpoint, "CreateTable", {
      TableName: "locks",
      AttributeDefinitions: [{ AttributeName: "k", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "k", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    });
    expect(await dynamodbCall(server.endpoint, "ListTables", {})).toEqual({ TableNames: ["locks"] });
    await server.kill();
    await server.start();
    expect(await dynamodbCall(server.endpoint, "ListTables", {})).toEqual({ TableNames: [] });
  });
});
