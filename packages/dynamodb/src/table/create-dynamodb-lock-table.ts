import { CreateTableCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { createDynamoDbClient } from "../connection/create-dynamodb-client.js";
import type { DynamoDbLockProviderOptions } from "../options/dynamodb-lock-provider-options.js";
import { resolveDynamoDbLockOptions } from "../options/resolve-dynamodb-lock-options.js";
import { KEY_ATTRIBUTE } from "./lock-item.js";

/** How long `createDynamoDbLockTable` waits for a new table to become ACTIVE. */
const ACTIVE_TIMEOUT_MS = 120_000;

/**
 * Creates the lock table the URL names (a string partition key `lockKey`, on-demand billing) unless it exists, and
 * resolves once it is ACTIVE: true when it created it. Same options as `DynamoDbLockProvider`. No TTL attribute: an
 * idle item keeps the key's fencing counter, and deleting it would let tokens start again at 1.
 */
export async function createDynamoDbLockTable(options: DynamoDbLockProviderOptions): Promise<boolean> {
  const resolved = resolveDynamoDbLockOptions(options);
  const client = resolved.client ?? createDynamoDbClient(resolved);
  try {
    let created = true;
    try {
      await client.send(
        new CreateTableCommand({
          TableName: resolved.table,
          AttributeDefinitions: [{ AttributeName: KEY_ATTRIBUTE, AttributeType: "S" }],
          KeySchema: [{ AttributeName: KEY_ATTRIBUTE, KeyType: "HASH" }],
          BillingMode: "PAY_PER_REQUEST",
        }),
      );
    } catch (error) {
      if ((error as { name?: unknown }).name !== "ResourceInUseException") throw error;
      created = false;
    }
    const deadline = performance.now() + ACTIVE_TIMEOUT_MS;
    for (let delay = 50; ; delay = Math.min(delay * 2, 2_000)) {
      const { Table: table } = await client.send(new DescribeTableCommand({ TableName: resolved.table }));
      if (table?.TableStatus === "ACTIVE") return created;
      if (performance.now() > deadline) throw new Error(`table "${resolved.table}" is still ${table?.TableStatus} after ${ACTIVE_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  } finally {
    if (resolved.client === undefined) client.destroy();
  }
}
