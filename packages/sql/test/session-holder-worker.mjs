// Holds a key in session mode until it is killed or stopped, and reports its token. Args: <url> <key> <ttlMs>.
import { SqlLockProvider } from "@distlock/sql";

const [url, key, ttlMs] = process.argv.slice(2);
const provider = new SqlLockProvider({ url });
setInterval(() => undefined, 1_000);
const lock = await provider.acquire(key, { ttlMs: Number(ttlMs) });
process.send?.({ fencingToken: String(lock.fencingToken) });
