import { parseLockUrl } from "@distlock/core/driver";
import { startRedis } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createRespConnection } from "./create-redis-connection.js";
import { RedisReplyError } from "./resp-codec.js";
import type { RespConnection } from "./resp-connection.js";

const server = await startRedis();
afterAll(() => server.close());

const connections: RespConnection[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.disconnect();
  await server.start();
});

function connect(url = server.url, connectTimeoutMs = 2_000): RespConnection {
  const connection = createRespConnection(parseLockUrl(url), { connectTimeoutMs }) as RespConnection;
  connections.push(connection);
  return connection;
}

const run = (connection: RespConnection, lua: string, keys: string[] = [], args: (string | number)[] = []) => connection.eval(lua, keys.length, keys, args);

function once(connection: RespConnection, event: "ready" | "error"): Promise<unknown> {
  return new Promise((resolve) => connection.once(event, resolve));
}

describe("RespConnection against redis-server", () => {
  it("answers pipelined calls in the order they were sent, with every reply type the scripts use", async () => {
    const connection = connect();
    const echoes = await Promise.all(Array.from({ length: 500 }, (_, i) => run(connection, "return {tonumber(ARGV[1]), ARGV[2]}", [], [i, `v${i}`])));
    expect(echoes).toEqual(Array.from({ length: 500 }, (_, i) => [i, `v${i}`]));
    expect(await run(connection, "return {1, false, {'a', 'ünï'}}")).toEqual([1, null, ["a", "ünï"]]);
    const big = "x".repeat(1 << 20);
    expect(await run(connection, "return ARGV[1]", [], [big])).toBe(big);
  });

  it("rejects an error reply with the server's message and stays usable; NOSCRIPT reaches the caller as such", async () => {
    const connection = connect();
    const error = await run(connection, "return redis.error_reply('ERR distlock test')").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisReplyError);
    expect((error as Error).message).toBe("ERR distlock test");
    const missing = await connection.evalsha("0".repeat(40), 0, [], []).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/^NOSCRIPT/);
    expect(await run(connection, "return 7")).toBe(7);
  });

  it("authenticates as the URL's user and selects the URL's database before anything else it sends", async () => {
    await server.command("ACL", "SETUSER", "locks", "on", ">s3cret", "~*", "&*", "+@all");
    const connection = connect(`redis://locks:s3cret@127.0.0.1:${server.port}/3`);
    expect(await run(connection, "return redis.call('SET', KEYS[1], 'here')", ["resp:db"])).toBe("OK");
    expect(String(await server.command("CLIENT", "LIST", "TYPE", "normal"))).toMatch(/ db=3 .* user=locks /);
    const inDb3 = new Redis({ port: server.port, db: 3 });
    expect(await inDb3.get("resp:db")).toBe("here");
    expect(await inDb3.select(0).then(() => inDb3.exists("resp:db"))).toBe(0);
    inDb3.disconnect();
  });

  it("sends nothing behind a refused AUTH and fails it with the server's answer, which does not echo the password", async () => {
    const evalsBefore = await server.commandCalls("eval");
    const connection = connect(`redis://nobody:wrong-pass@127.0.0.1:${server.port}`);
    const error = (await run(connection, "return 1").catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/WRONGPASS/);
    expect(error.message).not.toContain("wrong-pass");
    expect(await server.commandCalls("eval")).toBe(evalsBefore);
  });

  it("fails a call in flight when the connection drops, never sends it again, and reconnects for the next call", async () => {
    const connection = connect();
    await run(connection, "return 1");
    const waitsBefore = await server.commandCalls("wait");
    // WAIT for a replica that does not exist blocks until the connection goes.
    const blocked = connection.wait(1, 0).catch((e: unknown) => e);
    await expect.poll(async () => String(await server.command("CLIENT", "LIST", "TYPE", "normal"))).toContain("cmd=wait");
    await server.command("CLIENT", "KILL", "TYPE", "normal");
    expect(await blocked).toBeInstanceOf(Error);
    const ready = once(connection, "ready");
    expect(await run(connection, "return 2")).toBe(2);
    await ready;
    expect(await server.commandCalls("wait")).toBe(waitsBefore + 1);
  });

  it("fails calls made while the server is down with the connection's error, and works again once it is back", async () => {
    const connection = connect();
    await run(connection, "return 1");
    await server.kill();
    const error = (await run(connection, "return 1").catch((e: unknown) => e)) as Error & { code?: string };
    // Which socket error depends on where the kill finds the call: not yet written, written to a dead peer, or sent.
    expect(error).not.toBeInstanceOf(RedisReplyError);
    expect(error.code ?? error.message).toMatch(/^(ECONNREFUSED|ECONNRESET|EPIPE|Connection is closed\.)$/);
    await server.start();
    await expect.poll(() => run(connection, "return 3").catch(() => "down"), { timeout: 5_000 }).toBe(3);
  });

  it("after disconnect fails what it had not answered and every later call, and does not reconnect", async () => {
    const connection = connect();
    const blocked = connection.wait(1, 0).catch((e: unknown) => e);
    await expect.poll(async () => String(await server.command("CLIENT", "LIST", "TYPE", "normal"))).toContain("cmd=wait");
    connection.disconnect();
    expect(((await blocked) as Error).message).toBe("Connection is closed.");
    expect(((await run(connection, "return 1").catch((e: unknown) => e)) as Error).message).toBe("Connection is closed.");
    expect(connection.status).toBe("end");
  });
});
