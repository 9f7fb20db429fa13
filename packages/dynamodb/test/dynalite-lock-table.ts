import { createDynamoDbLockTable } from "@distlock/dynamodb";
import { type DynaliteOptions, type DynaliteServer, startDynalite } from "@distlock/test-servers";

/** dynalite's answers do not depend on the credentials; these keep the SDK's chain from looking further (files, instance roles). */
export function useDummyAwsCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = "distlock-test";
  process.env.AWS_SECRET_ACCESS_KEY = "distlock-test";
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}

/** A dynalite server with a lock table: `url` is the table's `dynamodb://` URL (worker processes inherit the credentials). */
export async function startDynaliteLockTable(table = "distlock-locks", options: DynaliteOptions = {}): Promise<{ server: DynaliteServer; url: string }> {
  useDummyAwsCredentials();
  const server = await startDynalite(options);
  const url = server.url(table);
  await createDynamoDbLockTable({ url });
  return { server, url };
}
