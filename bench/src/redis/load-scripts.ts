import type { RedisScript } from "@distlock/redis/internal";
import type { Redis } from "ioredis";

/** SCRIPT LOAD of every script on `client`, checked against the sha EVALSHA names, so no measured call meets NOSCRIPT. */
export async function loadScripts(client: Redis, scripts: readonly RedisScript[]): Promise<void> {
  for (const script of scripts) {
    const sha = await client.script("LOAD", script.lua);
    if (sha !== script.sha) throw new Error(`SCRIPT LOAD of ${script.name} answered ${String(sha)}, not its sha ${script.sha}`);
  }
}
