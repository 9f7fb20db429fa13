import { DescribeTableCommand, type TableDescription } from "@aws-sdk/client-dynamodb";
import { type DeploymentCheck, providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import { createDynamoDbClient } from "../connection/create-dynamodb-client.js";
import type { DynamoDbLockProviderOptions } from "../options/dynamodb-lock-provider-options.js";
import { resolveDynamoDbLockOptions } from "../options/resolve-dynamodb-lock-options.js";
import { KEY_ATTRIBUTE } from "./lock-item.js";

/**
 * `distlock doctor`'s checks of a DynamoDB deployment (`BackendModule.checkDeployment`): the lock table exists, is
 * ACTIVE with the key schema the backend writes, and is not a global table (replicas in other regions take writes with
 * "last writer wins", so two regions could each grant a key). Nothing found rejects: a table that cannot be described
 * is a `fail` row.
 */
export async function checkDynamoDbDeployment(config: ResolvedLockConfig): Promise<DeploymentCheck[]> {
  const options = resolveDynamoDbLockOptions(providerOptionsFromConfig(config) as unknown as DynamoDbLockProviderOptions, "config");
  const client = options.client ?? createDynamoDbClient(options);
  let table: TableDescription | undefined;
  try {
    table = (await client.send(new DescribeTableCommand({ TableName: options.table }))).Table;
  } catch (error) {
    const missing = (error as { name?: unknown }).name === "ResourceNotFoundException";
    const found = missing
      ? `no table "${options.table}" in ${options.region}`
      : `the table could not be described: ${error instanceof Error ? error.message : String(error)}`;
    return [
      {
        check: "dynamodb.table",
        status: "fail",
        found,
        change: missing ? "create it with createDynamoDbLockTable()" : "check the endpoint, region and credentials",
      },
    ];
  } finally {
    if (options.client === undefined) client.destroy();
  }
  return [tableCheck(options.table, table), replicasCheck(table)];
}

function tableCheck(name: string, table: TableDescription | undefined): DeploymentCheck {
  const key = table?.KeySchema?.map((part) => `${part.AttributeName} ${part.KeyType}`).join(", ");
  if (key !== `${KEY_ATTRIBUTE} HASH`) {
    return {
      check: "dynamodb.table",
      status: "fail",
      found: `table "${name}" has the key ${key ?? "(none)"}; the backend writes ${KEY_ATTRIBUTE} HASH`,
      change: "a table of its own, made by createDynamoDbLockTable()",
    };
  }
  if (table?.TableStatus !== "ACTIVE")
    return { check: "dynamodb.table", status: "warn", found: `table "${name}" is ${table?.TableStatus}`, change: "wait until it is ACTIVE" };
  return { check: "dynamodb.table", status: "ok", found: `table "${name}" ACTIVE, key ${key}` };
}

function replicasCheck(table: TableDescription | undefined): DeploymentCheck {
  const regions = (table?.Replicas ?? []).map((replica) => replica.RegionName).filter((region) => region !== undefined);
  if (regions.length === 0) return { check: "dynamodb.replicas", status: "ok", found: "one region: every conditional write is decided in one place" };
  return {
    check: "dynamodb.replicas",
    status: "fail",
    found: `a global table replicated to ${regions.join(", ")}: each region takes writes and settles conflicts by last writer wins, so two regions can grant one key`,
    change: "a lock table in one region, reached from every region",
  };
}
