import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { ResolvedDynamoDbLockOptions } from "../options/dynamodb-lock-provider-options.js";

/**
 * A client for the URL's region and endpoint; credentials come from the SDK's default chain. The SDK does not retry
 * (`maxAttempts: 1`): a conditional write retried after its first try took effect would fail its condition and be
 * read as a refusal. The driver itself retries throttling refusals, which DynamoDB never applied (`retryThrottled`);
 * any other failed call surfaces as BACKEND_UNAVAILABLE.
 */
export function createDynamoDbClient(options: Pick<ResolvedDynamoDbLockOptions, "region" | "endpoint">): DynamoDBClient {
  return new DynamoDBClient({ region: options.region, ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }), maxAttempts: 1 });
}
