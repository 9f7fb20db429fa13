import type { Lock } from "@distlock/core";
import { fencedRun, redisFenceKey } from "@distlock/fence/redis";
import { Redis } from "ioredis";
import { asPausedHolder, type FencedResource, type FenceTarget, type FenceWrite, fenceWrite } from "./fenced-resource.js";

/**
 * A key on a separate redis-server, written with `fencedRun`: one script that sets the key and `INCR`s its `seq` key
 * only while the stored token is not larger, storing the token. The generous timeout outlasts a SIGSTOP of the writer
 * (whose timers fire before its I/O on resume).
 */
export class RedisFencedResource implements FencedResource {
  readonly #client: Redis;

  constructor(target: Extract<FenceTarget, { kind: "redis" }>, timeoutMs = 30_000) {
    this.#client = new Redis({ host: "127.0.0.1", port: target.port, commandTimeout: timeoutMs, connectTimeout: timeoutMs, maxRetriesPerRequest: 1 });
  }

  write(lock: Lock): Promise<FenceWrite> {
    const key = `resource:{${lock.key}}`;
    const seqKey = `${key}:seq`;
    return fenceWrite(async () => {
      const commands = [
        ["SET", key, String(lock.fencingToken)],
        ["INCR", seqKey],
      ] as const;
      const [, seq] = await fencedRun(this.#client, asPausedHolder(lock), { keys: [key, seqKey], commands, fenceKey: redisFenceKey(key) });
      return Number(seq);
    });
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => this.#client.disconnect());
  }
}
