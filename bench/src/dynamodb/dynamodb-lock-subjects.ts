import { randomUUID } from "node:crypto";
import { DeleteItemCommand, DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDbLockProvider } from "@distlock/dynamodb";
import { type LockSubject, providerSubject } from "../harness/index.js";

/** The bench's table on dynalite; `target` is its endpoint. */
export const BENCH_TABLE = "distlock-bench";

/** The lock table's URL on the server at `endpoint`. */
export const tableUrl = (endpoint: string) => `dynamodb://us-east-1/${BENCH_TABLE}?endpoint=${encodeURIComponent(endpoint)}`;

/** distlock's provider: one conditional PutItem to take back a key it freed, one conditional UpdateItem to release it; waiters poll in a line kept in the item. */
export const DISTLOCK: LockSubject = {
  id: "distlock",
  name: "distlock",
  role: "distlock",
  settings:
    "a key it freed taken back by one conditional PutItem, released by one conditional UpdateItem (fencing counter kept; both conditions as Expected, not expressions), a line of polling waiters in the item, watchdog on",
  open: async (endpoint) => providerSubject(new DynamoDbLockProvider({ url: tableUrl(endpoint) })),
};

/** The floor: a conditional put to take, a conditional delete to release, on the same client; no lease, no fencing, no renewal. */
export const RAW_FLOOR: LockSubject = {
  id: "raw",
  name: "raw conditional put/delete",
  role: "floor",
  settings: "PutItem if attribute_not_exists + DeleteItem if owner matches, same SDK client, no lease",
  async open(endpoint) {
    const client = new DynamoDBClient({ region: "us-east-1", endpoint, maxAttempts: 1 });
    return {
      async acquire(key) {
        const owner = randomUUID();
        await client.send(
          new PutItemCommand({
            TableName: BENCH_TABLE,
            Item: { lockKey: { S: key }, ownerSecret: { S: owner } },
            ConditionExpression: "attribute_not_exists(lockKey)",
          }),
        );
        return async () => {
          await client.send(
            new DeleteItemCommand({
              TableName: BENCH_TABLE,
              Key: { lockKey: { S: key } },
              ConditionExpression: "ownerSecret = :owner",
              ExpressionAttributeValues: { ":owner": { S: owner } },
            }),
          );
        };
      },
      close: async () => client.destroy(),
    };
  },
};
