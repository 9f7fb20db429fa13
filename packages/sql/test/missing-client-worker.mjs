// Runs SQL providers (from dist/) with some client libraries made unresolvable, and prints as JSON what each URL's
// first acquire did, through the constructor and through createLockProvider. Args: <packages to hide, comma-separated> <url>...
import { register } from "node:module";

const [hidden, ...urls] = process.argv.slice(2);
register("./hide-packages-hooks.mjs", import.meta.url, { data: hidden.split(",") });
const { createLockProvider } = await import("@distlock/core");
const { SqlLockProvider } = await import("@distlock/sql");

// Never used nor closed: a failed load must not become an unhandled rejection, which would end this process with
// code 1. Their imports are asked for first, so they have failed by the time the reports below are written.
const unused = urls.map((url) => new SqlLockProvider({ url }));

async function firstAcquire(open) {
  let provider;
  try {
    provider = await open();
    const lock = await provider.acquire("k", { waitMs: 1_000 });
    await lock.release();
    return { granted: true };
  } catch (error) {
    return { code: error.code, field: error.field, message: error.message, cause: error.cause?.code };
  } finally {
    await provider?.close();
  }
}

const reports = [];
for (const url of urls) {
  const constructed = await firstAcquire(async () => new SqlLockProvider({ url }));
  const created = await firstAcquire(() => createLockProvider(url));
  reports.push({ url, constructed, created });
}
process.stdout.write(JSON.stringify({ reports, unused: unused.length }));
