import type { Redis } from "ioredis";
import { parseInfo } from "./redis-node.js";

/** What the checks read from one server. */
export interface RedisServerFacts {
  /** `host:port` as the URL names it. */
  readonly name: string;
  readonly info: ReadonlyMap<string, string>;
  /** `CONFIG GET save`, or undefined when CONFIG is renamed or not permitted. */
  readonly saveConfig: string | undefined;
  /** Server `TIME` minus this host's clock at the middle of the call, in ms. */
  readonly clockOffsetMs: number;
  /** Round trip of the `TIME` call, in ms: the offset is known to within half of it. */
  readonly timeRoundTripMs: number;
}

/** Reads INFO, the RDB save setting (when CONFIG is allowed) and the clock offset of one server. */
export async function readServerFacts(client: Redis, name: string): Promise<RedisServerFacts> {
  const info = parseInfo(await client.info());
  const saveConfig = await client
    .config("GET", "save")
    .then((reply) => (Array.isArray(reply) && typeof reply[1] === "string" ? reply[1] : undefined))
    .catch(() => undefined);
  const sentAt = Date.now();
  const started = performance.now();
  const [seconds, micros] = (await client.time()) as [string | number, string | number];
  const timeRoundTripMs = performance.now() - started;
  const serverMs = Number(seconds) * 1000 + Number(micros) / 1000;
  return { name, info, saveConfig, clockOffsetMs: serverMs - (sentAt + timeRoundTripMs / 2), timeRoundTripMs };
}
