// Waits for a key until it is killed: a waiter that crashes while in line. Args: <url> <key>.
import { SqlLockProvider } from "@distlock/sql";

const [url, key] = process.argv.slice(2);
const provider = new SqlLockProvider({ url });
// The wait's own timers do not keep a process alive.
setInterval(() => undefined, 1_000);
await provider.acquire(key, { ttlMs: 60_000 });
process.send?.("acquired");
