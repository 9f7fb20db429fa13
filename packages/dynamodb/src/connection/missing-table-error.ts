import { InvalidConfigError } from "@distlock/core/driver";

/** The table the URL names does not exist (DynamoDB's `ResourceNotFoundException`), as the caller's configuration error. */
export function missingTableError(table: string, region: string, cause: unknown): InvalidConfigError {
  return new InvalidConfigError(
    "url.path",
    `table "${table}" does not exist in ${region}; create it with createDynamoDbLockTable() or point the URL at another table`,
    { cause },
  );
}
