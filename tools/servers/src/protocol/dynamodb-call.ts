import { request } from "node:http";
import { TestServerError } from "../errors/test-server-error.js";

/**
 * One DynamoDB JSON call (`target` e.g. "ListTables") over plain HTTP without keep-alive, resolving with the parsed
 * answer of a 2xx reply. Signed with dummy credentials: dynalite checks that a signature is there, not what it says.
 */
export function dynamodbCall(endpoint: string, target: string, body: unknown, timeoutMs = 2_000): Promise<unknown> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      endpoint,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/x-amz-json-1.0",
          "content-length": Buffer.byteLength(payload),
          "x-amz-target": `DynamoDB_20120810.${target}`,
          authorization: "AWS4-HMAC-SHA256 Credential=test/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
          "x-amz-date": "20000101T000000Z",
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("error", reject);
        res.once("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) reject(new TestServerError(`${endpoint} ${target} answered HTTP ${status}: ${text.slice(0, 500)}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new TestServerError(`${endpoint} did not answer ${target} within ${timeoutMs} ms.`)));
    req.once("error", reject);
    req.end(payload);
  });
}
