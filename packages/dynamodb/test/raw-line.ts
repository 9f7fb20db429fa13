import { randomUUID } from "node:crypto";
import { type DynaliteServer, dynamodbCall } from "@distlock/test-servers";

/** The table, key prefix and server a test's raw reads and writes of a lock item go to (the provider's defaults). */
export interface RawTable {
  readonly server: DynaliteServer;
  readonly table: string;
  readonly prefix: string;
}

type RawItem = { Item?: { line?: { L?: Array<{ M: { placeId: { S: string } } }> } } };

/** The place ids in `key`'s line as the server has them, read past the provider. */
export async function placesInLine({ server, table, prefix }: RawTable, key: string): Promise<string[]> {
  const answer = (await dynamodbCall(server.endpoint, "GetItem", { TableName: table, Key: { lockKey: { S: prefix + key } }, ConsistentRead: true })) as RawItem;
  return (answer.Item?.line?.L ?? []).map((place) => place.M.placeId.S);
}

/** `key`'s line attribute as the server has it (its place ids), or undefined when the item has none. */
export async function lineOnServer({ server, table, prefix }: RawTable, key: string): Promise<string[] | undefined> {
  const answer = (await dynamodbCall(server.endpoint, "GetItem", { TableName: table, Key: { lockKey: { S: prefix + key } }, ConsistentRead: true })) as RawItem;
  return answer.Item?.line?.L?.map((place) => place.M.placeId.S);
}

/** Appends a place nobody refreshes to `key`'s line, as a waiter that died (or stopped) right after joining leaves it. */
export async function abandonedPlace({ server, table, prefix }: RawTable, key: string, leaseMs: number): Promise<string> {
  const placeId = `abandoned-${randomUUID()}`;
  await dynamodbCall(server.endpoint, "UpdateItem", {
    TableName: table,
    Key: { lockKey: { S: prefix + key } },
    UpdateExpression: "SET #line = list_append(if_not_exists(#line, :empty), :places)",
    ExpressionAttributeNames: { "#line": "line" },
    ExpressionAttributeValues: {
      ":empty": { L: [] },
      ":places": { L: [{ M: { placeId: { S: placeId }, leaseMs: { N: String(leaseMs) }, recordVersion: { S: randomUUID() } } }] },
    },
  });
  return placeId;
}

/** Resolves once `key`'s line has `count` places on the server, reading again right after each answer; fails after 10 s. */
export async function untilLineHas(raw: RawTable, key: string, count: number): Promise<void> {
  const deadline = performance.now() + 10_000;
  while ((await placesInLine(raw, key)).length < count) {
    if (performance.now() > deadline) throw new Error(`the line of ${key} never had ${count} places`);
  }
}
