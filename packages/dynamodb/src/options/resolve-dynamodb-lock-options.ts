import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type BackendOptionsSpec, backendSettings, InvalidConfigError, resolveBackendOptions } from "@distlock/core/driver";
import { lockBackend } from "../lock-backend.js";
import { DEFAULT_DYNAMODB_LOCK_OPTIONS, type DynamoDbLockProviderOptions, type ResolvedDynamoDbLockOptions } from "./dynamodb-lock-provider-options.js";

const MAX_PREFIX_LENGTH = 64;
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const REGION = /^[a-z0-9-]{1,64}$/;

const DYNAMODB_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_DYNAMODB_LOCK_OPTIONS> = {
  backend: "dynamodb",
  urlBackends: ["dynamodb"],
  // Read `dynamodb://` even where nobody registered the backend (a provider constructed directly).
  schemes: lockBackend.schemes,
  urlSchemes: "dynamodb://<region>/<table>?endpoint=<url>",
  ownOptions: ["endpoint", "client"],
  ownParams: ["endpoint"],
  settings: {
    prefix: backendSettings.text((value, field) => {
      if (typeof value !== "string" || value === "" || value.length > MAX_PREFIX_LENGTH || /[\u0000-\u001f]/.test(value)) {
        throw new InvalidConfigError(field, `must be 1 to ${MAX_PREFIX_LENGTH} characters without control characters`);
      }
      return value;
    }),
    commandTimeoutMs: backendSettings.duration(1),
    driftRate: backendSettings.number(0, 1),
    driftMarginMs: backendSettings.integer(0, 60_000),
  },
  defaults: DEFAULT_DYNAMODB_LOCK_OPTIONS,
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>` for an option,
 * `url.<param>` for a URL query parameter), and applies the defaults; URL parameters fill in what options leave out.
 */
export function resolveDynamoDbLockOptions(options: DynamoDbLockProviderOptions, optionsField = "options"): ResolvedDynamoDbLockOptions {
  const { url, holderLabel, settings } = resolveBackendOptions(DYNAMODB_LOCK_OPTIONS, options, optionsField);
  if (url === undefined) throw new InvalidConfigError(`${optionsField}.url`, "give the table's URL, e.g. dynamodb://eu-west-1/locks");
  if (url.username !== undefined || url.password !== undefined) {
    throw new InvalidConfigError("url.username", "dynamodb: URLs carry no credentials; the AWS SDK's credential chain provides them");
  }
  const region = url.hosts[0]?.host ?? "";
  if (!REGION.test(region) || url.hosts[0]?.port !== undefined) {
    throw new InvalidConfigError("url.host", "must be an AWS region without a port, e.g. dynamodb://eu-west-1/locks");
  }
  if (!TABLE_NAME.test(url.path)) {
    throw new InvalidConfigError("url.path", "must be the table name: 3 to 255 of A-Z a-z 0-9 _ . -, e.g. dynamodb://eu-west-1/locks");
  }
  const given = options as unknown as Readonly<Record<string, unknown>>;
  const endpoint = checkEndpoint(
    given.endpoint ?? url.params.get("endpoint") ?? undefined,
    given.endpoint === undefined ? "url.endpoint" : `${optionsField}.endpoint`,
  );
  const client = checkClient(given.client, `${optionsField}.client`);
  return Object.freeze({ ...settings, holderLabel, region, table: url.path, endpoint, client });
}

function checkEndpoint(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new InvalidConfigError(field, "must be an http:// or https:// URL, e.g. http://127.0.0.1:8000");
  }
  return value;
}

function checkClient(value: unknown, field: string): DynamoDBClient | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || typeof (value as { send?: unknown }).send !== "function") {
    throw new InvalidConfigError(field, "must be a DynamoDBClient from @aws-sdk/client-dynamodb");
  }
  return value as DynamoDBClient;
}
