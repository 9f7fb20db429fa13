import { FencedOutError, InvalidArgumentError } from "@distlock/core";
import type { Cluster, Redis, RedisValue } from "ioredis";

/** An ioredis client: a single server (also through Sentinel) or a cluster. */
export type RedisClient = Redis | Cluster;

/** One Redis command as its words, name first: `["HINCRBY", "stock:1", "count", 1]`. */
export type RedisCommand = readonly [name: string, ...args: RedisValue[]];

/**
 * KEYS: the token keys, then the written keys (declared so a cluster routes the script to their slot).
 * ARGV: token, number of token keys, number of commands, then each command as its length and its words.
 * Tokens are compared as decimal strings (longer is larger), since Lua numbers lose integers above 2^53.
 * The token is stored before the commands run: a command failing half-way leaves what ran before it (Redis
 * scripts do not roll back), and those writes must already be fenced.
 */
const FENCED_RUN_LUA = `
local token = ARGV[1]
local fences = tonumber(ARGV[2])
for i = 1, fences do
  local stored = redis.call('GET', KEYS[i])
  if stored then
    if not string.match(stored, '^%d+$') then
      return redis.error_reply('ERR fencing token key ' .. KEYS[i] .. ' holds ' .. stored .. ', not a token')
    end
    if #stored > #token or (#stored == #token and stored > token) then return {0, stored} end
  end
end
for i = 1, fences do redis.call('SET', KEYS[i], token) end
local replies = {}
local at = 4
for c = 1, tonumber(ARGV[3]) do
  local length = tonumber(ARGV[at])
  replies[c] = redis.call(unpack(ARGV, at + 1, at + length))
  at = at + length + 1
end
return {1, unpack(replies)}
`;

/** The name the script is defined under on each client (ioredis `defineCommand`: EVALSHA, EVAL when the server lacks it). */
const COMMAND_NAME = "distlockFencedRun";

type FencedRunCommand = (numberOfKeys: number, ...keysAndArgs: RedisValue[]) => Promise<[number, ...unknown[]]>;

/** The fenced script on `client`, defined there on first use. */
function fencedRunCommand(client: RedisClient): FencedRunCommand {
  const defined = client as unknown as Record<string, FencedRunCommand | undefined>;
  if (typeof defined[COMMAND_NAME] !== "function") client.defineCommand(COMMAND_NAME, { lua: FENCED_RUN_LUA });
  return (defined[COMMAND_NAME] as FencedRunCommand).bind(client);
}

/** What one fenced script writes. */
export interface FencedRunRequest {
  /** How the refusing resource is named in `FencedOutError`. */
  readonly resource: string;
  readonly token: bigint;
  readonly fenceKeys: readonly string[];
  readonly keys: readonly string[];
  readonly commands: readonly RedisCommand[];
}

/** Runs the commands if no token key holds a larger token than `token`, storing it; the replies, or FencedOutError. */
export async function runFenced(client: RedisClient, request: FencedRunRequest): Promise<unknown[]> {
  const { resource, token, fenceKeys, keys, commands } = request;
  const args: RedisValue[] = [token.toString(), fenceKeys.length, commands.length];
  for (const command of commands) args.push(command.length, ...command);
  const [written, ...rest] = await fencedRunCommand(client)(fenceKeys.length + keys.length, ...fenceKeys, ...keys, ...args);
  if (written !== 1) throw new FencedOutError(resource, token, BigInt(String(rest[0])));
  return rest;
}

/** Checks that `client` is an ioredis client without a key prefix, which would rename the declared keys but not the keys inside the commands. */
export function checkScriptClient(client: RedisClient): void {
  if (typeof client !== "object" || client === null || typeof client.defineCommand !== "function") {
    throw new InvalidArgumentError("redis", "must be an ioredis Redis or Cluster client");
  }
  if (client.options.keyPrefix) {
    throw new InvalidArgumentError(
      "redis.options.keyPrefix",
      "must be unset for fenced writes: ioredis prefixes a script's keys but not the key names inside its commands; put the prefix in the key names",
    );
  }
}
