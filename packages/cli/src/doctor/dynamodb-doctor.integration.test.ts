import { createDynamoDbLockTable } from "@distlock/dynamodb";
import { type DynaliteServer, dynamodbCall, startDynalite } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli-process.test-support.js";
import { ExitCode } from "../exit-codes.js";

// A backend that brings its own checks (`checkDeployment`, exported by @distlock/dynamodb) through the public hook,
// loaded the way a user loads it: --backend-module. dynalite checks no credentials; the SDK's chain must find some.
let server: DynaliteServer;

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = "distlock-test";
  process.env.AWS_SECRET_ACCESS_KEY = "distlock-test";
  server = await startDynalite();
  await createDynamoDbLockTable({ url: server.url("doctor-locks") });
  await dynamodbCall(server.endpoint, "CreateTable", {
    TableName: "doctor-other-key",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    BillingMode: "PAY_PER_REQUEST",
  });
});
afterAll(() => server?.close());

const doctor = async (table: string, selfTest = true) => {
  const flags = selfTest ? [] : ["--no-self-test"];
  const result = await runCli(["doctor", "--backend-module", "@distlock/dynamodb", "--url", server.url(table), "--json", "--strict", ...flags]);
  const report = JSON.parse(result.stdout) as { checks: Array<{ check: string; status: string; found: string }> };
  return { code: result.code, rows: report.checks.filter((row) => row.check.startsWith("dynamodb.")).map((row) => `${row.check} ${row.status}`), report };
};

describe("doctor on DynamoDB (the backend's own checks)", () => {
  it("passes the lock table made by createDynamoDbLockTable, then runs the self-test", async () => {
    const sound = await doctor("doctor-locks");
    expect(sound.rows).toEqual(["dynamodb.table ok", "dynamodb.replicas ok"]);
    expect(sound.code).toBe(ExitCode.Ok);
    expect(sound.report.checks.map((row) => row.check)).toContain("self-test.exclusion");
  });

  it("fails a missing table and a table with another key schema", async () => {
    const missing = await doctor("doctor-missing", false);
    expect(missing.rows).toEqual(["dynamodb.table fail"]);
    expect(missing.report.checks[0]?.found).toBe('no table "doctor-missing" in us-east-1');
    expect(missing.code).toBe(ExitCode.Failure);
    const otherKey = await doctor("doctor-other-key", false);
    expect(otherKey.rows).toEqual(["dynamodb.table fail", "dynamodb.replicas ok"]);
    expect(otherKey.report.checks[0]?.found).toMatch(/has the key id HASH/);
  });
});
