import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DriverLockProviderOptions, LockUrl } from "@distlock/core/driver";

/**
 * Options of `DynamoDbLockProvider`. Each setting with a default can also be a query parameter of the URL:
 * `dynamodb://eu-west-1/locks?commandTimeoutMs=2000`. Credentials come from the AWS SDK's usual chain (environment,
 * shared files, the instance or task role), never from the URL.
 */
export interface DynamoDbLockProviderOptions extends DriverLockProviderOptions {
  /** `dynamodb://<region>/<table>`, optionally `?endpoint=<url>`. The provider connects on first use, never in its constructor. */
  url: string | LockUrl;
  /** Endpoint of a DynamoDB-compatible server (dynalite, DynamoDB Local), e.g. `http://127.0.0.1:8000`; also the URL's `endpoint` parameter. Default: the region's AWS endpoint. */
  endpoint?: string;
  /**
   * A client of your own (its region, endpoint and credentials are used; the URL then names only the table). The
   * provider never destroys it. Create it with `maxAttempts: 1`: an SDK retry of a conditional write whose first try
   * took effect would be read as a refusal.
   */
  client?: DynamoDBClient;
  /** Namespace of every key in the table, so that applications can share one table. @default "distlock:" */
  prefix?: string;
  /** Upper bound on every DynamoDB call, including connecting; then it fails with BACKEND_UNAVAILABLE. @default 5000 */
  commandTimeoutMs?: number;
  /**
   * The largest relative difference between two machines' clock rates this provider tolerates: a waiter waits a
   * lease × (1 + driftRate) + driftMarginMs on its own clock without seeing a renewal before it takes the key over. @default 0.01
   */
  driftRate?: number;
  /** Added to every takeover wait on top of the rate allowance (see `driftRate`). @default 100 */
  driftMarginMs?: number;
}

/** The default of every option of `DynamoDbLockProviderOptions` that has one. */
export const DEFAULT_DYNAMODB_LOCK_OPTIONS: Readonly<
  Required<Pick<DynamoDbLockProviderOptions, "prefix" | "commandTimeoutMs" | "driftRate" | "driftMarginMs">>
> = Object.freeze({
  prefix: "distlock:",
  commandTimeoutMs: 5_000,
  driftRate: 0.01,
  driftMarginMs: 100,
});

/** `DynamoDbLockProviderOptions` after validation: every default applied, region and table taken from the URL. */
export type ResolvedDynamoDbLockOptions = typeof DEFAULT_DYNAMODB_LOCK_OPTIONS &
  Readonly<{ region: string; table: string; endpoint: string | undefined; client: DynamoDBClient | undefined; holderLabel: string | undefined }>;
