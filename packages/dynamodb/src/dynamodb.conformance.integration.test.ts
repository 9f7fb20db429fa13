import { describeLockProvider } from "@distlock/conformance";
import { DEFAULT_DYNAMODB_LOCK_OPTIONS, DynamoDbLockProvider } from "@distlock/dynamodb";
import { afterAll } from "vitest";
import { startDynaliteLockTable } from "../test/dynalite-lock-table.js";

const { server, url } = await startDynaliteLockTable();
afterAll(() => server.close());

describeLockProvider({
  name: "dynamodb",
  create: () => new DynamoDbLockProvider({ url }),
  capabilities: { fencing: true, fifo: true, listing: true, semaphore: false },
  // Worker processes build their provider from this URL, after loading the backend module through DISTLOCK_BACKENDS.
  workerUrl: url,
  backendModule: "@distlock/dynamodb",
  config: { construct: (options) => new DynamoDbLockProvider({ url, ...options }), defaults: DEFAULT_DYNAMODB_LOCK_OPTIONS },
  faults: { pause: () => server.pause(), resume: () => server.resume() },
});
