import { httpJson } from "./http-json.js";

/**
 * One DynamoDB JSON call (`target` e.g. "ListTables") over plain HTTP without keep-alive, resolving with the parsed
 * answer of a 2xx reply. Signed with dummy credentials: dynalite checks that a signature is there, not what it says.
 */
export function dynamodbCall(endpoint: string, target: string, body: unknown, timeoutMs = 2_000): Promise<unknown> {
  return httpJson(endpoint, {
    method: "POST",
    body,
    timeoutMs,
    headers: {
      "content-type": "application/x-amz-json-1.0",
      "x-amz-target": `DynamoDB_20120810.${target}`,
      authorization: "AWS4-HMAC-SHA256 Credential=test/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
      "x-amz-date": "20000101T000000Z",
    },
  });
}
