import { Redis } from "ioredis";

/** Accepts a write unless its token is lower than the highest one accepted so far; tokens compared as decimal bigints. */
const WRITE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local token = ARGV[1]
if current and (#current > #token or (#current == #token and current > token)) then
  return {0, current}
end
redis.call('SET', KEYS[1], token)
return {redis.call('INCR', KEYS[2]), token}`;

/** Outcome of one write to the fenced resource. */
export interface FenceWrite {
  readonly accepted: boolean;
  /** Position among accepted writes (1, 2, ...); 0 when rejected. */
  readonly seq: number;
}

/**
 * A resource that rejects writes with a lower fencing token than one it already accepted: one Redis key and a Lua compare-and-set.
 * Its server is never faulted; the generous timeout outlasts a SIGSTOP of the writer (whose timers fire before its I/O on resume).
 */
export class RedisFence {
  readonly #client: Redis;
  readonly #key: string;

  constructor(port: number, key: string, timeoutMs = 30_000) {
    this.#client = new Redis({ host: "127.0.0.1", port, commandTimeout: timeoutMs, connectTimeout: timeoutMs, maxRetriesPerRequest: 1 });
    this.#key = key;
  }

  async write(token: string): Promise<FenceWrite> {
    const [seq] = (await this.#client.eval(WRITE_SCRIPT, 2, `fence:{${this.#key}}`, `fence:{${this.#key}}:seq`, token)) as [number, string];
    return { accepted: seq > 0, seq };
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => this.#client.disconnect());
  }
}
