import { invalidConfigOf } from "@distlock/conformance";
import { createLockProvider, type InvalidConfigError } from "@distlock/core";
import { registerLockBackend } from "@distlock/core/driver";
import { describe, expect, it } from "vitest";
import { createLockProviderFromConfig } from "../create-lock-provider-from-config.js";
import { DynamoDbLockProvider } from "../dynamodb-lock-provider.js";
import { lockBackend } from "../lock-backend.js";
import { DEFAULT_DYNAMODB_LOCK_OPTIONS } from "./dynamodb-lock-provider-options.js";
import { resolveDynamoDbLockOptions } from "./resolve-dynamodb-lock-options.js";

const URL = "dynamodb://eu-west-1/locks";

describe("dynamodb provider options", () => {
  it("takes region and table from the URL, and the defaults for the rest", () => {
    expect(resolveDynamoDbLockOptions({ url: URL })).toMatchObject({ ...DEFAULT_DYNAMODB_LOCK_OPTIONS, region: "eu-west-1", table: "locks" });
  });

  it("takes the endpoint and settings from URL parameters, options winning", () => {
    const url = `${URL}?endpoint=${encodeURIComponent("http://127.0.0.1:8000")}&commandTimeoutMs=2000&driftRate=0.05`;
    expect(resolveDynamoDbLockOptions({ url, driftRate: 0.02 })).toMatchObject({
      endpoint: "http://127.0.0.1:8000",
      commandTimeoutMs: 2000,
      driftRate: 0.02,
    });
  });

  it.each([
    ["no URL", {}, "options.url"],
    ["another backend's URL", { url: "redis://127.0.0.1:6379" }, "url.scheme"],
    ["a region with a port", { url: "dynamodb://eu-west-1:443/locks" }, "url.host"],
    ["no table", { url: "dynamodb://eu-west-1" }, "url.path"],
    ["a table name DynamoDB refuses", { url: "dynamodb://eu-west-1/a/b" }, "url.path"],
    ["credentials in the URL", { url: "dynamodb://AKIAEXAMPLE:s3cr3t@eu-west-1/locks" }, "url.username"],
    ["an endpoint that is no http URL", { url: `${URL}?endpoint=127.0.0.1:8000` }, "url.endpoint"],
    ["an endpoint option that is no URL", { url: URL, endpoint: "" }, "options.endpoint"],
    ["a client that is no DynamoDBClient", { url: URL, client: {} }, "options.client"],
    ["an empty prefix", { url: URL, prefix: "" }, "options.prefix"],
    ["a drift rate above 1", { url: URL, driftRate: 2 }, "options.driftRate"],
    ["a negative drift margin", { url: `${URL}?driftMarginMs=-1` }, "url.driftMarginMs"],
    ["a zero command timeout", { url: URL, commandTimeoutMs: 0 }, "options.commandTimeoutMs"],
    ["an unknown option", { url: URL, table: "locks" }, "options.table"],
  ])("rejects %s, naming the field, before connecting", (_, options, field) => {
    const error = invalidConfigOf(() => new DynamoDbLockProvider(options as never));
    expect(error.field).toBe(field);
    expect(error.message).not.toContain("s3cr3t");
  });

  it("claims fencing, FIFO and listing, no server clock and no semaphores", async () => {
    const provider = new DynamoDbLockProvider({ url: URL });
    expect(provider.capabilities).toEqual({
      fencing: true,
      fifo: true,
      serverClock: false,
      minTtlMs: 1,
      ttlGranularityMs: 1,
      listing: true,
      semaphore: false,
      readWriteLock: false,
    });
    await provider.close();
  });

  it("is reached by createLockProvider once registered for its scheme, with errors naming config fields", async () => {
    registerLockBackend(lockBackend.name, createLockProviderFromConfig, { schemes: lockBackend.schemes });
    const provider = await createLockProvider(`${URL}?commandTimeoutMs=1500`);
    expect(provider.backend).toBe("dynamodb");
    await provider.close();
    const error = await createLockProvider({ backend: "dynamodb", url: URL, prefix: 42 } as never).then(
      () => undefined,
      (failure: unknown) => failure as InvalidConfigError,
    );
    expect(error?.field).toBe("config.prefix");
  });
});
