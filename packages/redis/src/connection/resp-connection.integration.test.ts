import { type CallOutcomes, parseLockUrl } from "@distlock/core/internal";
import { startRedis, startTcpProxy } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RedisScript } from "../scripts/redis-script.js";
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

  describe("runScript", () => {
    /** Outcomes that show what went where: the answer with the call's context, and the rest as errors naming it. */
    function outcomes(late?: (reply: unknown, context: string) => void): CallOutcomes<unknown, { reply: unknown; context: string }, string> {
      return {
        value: (reply, context) => ({ reply, context }),
        error: (error, context) => new Error(`failed ${context}: ${(error as Error).message}`),
        timedOut: (timeoutMs, context) => new Error(`no answer to ${context} within ${timeoutMs} ms`),
        ...(late === undefined ? {} : { late }),
      };
    }

    it("runs a script the server does not have by EVAL once, then by EVALSHA, answering through the outcomes", async () => {
      const script = new RedisScript("resp:echo", `return {ARGV[1], "${Math.random()}"}`, 1);
      const connection = connect();
      const [evalsBefore, evalshasBefore] = [await server.commandCalls("eval"), await server.commandCalls("evalsha")];
      const first = await connection.runScript(script, ["resp:k"], ["a"], 2_000, outcomes(), "first");
      const second = await connection.runScript(script, ["resp:k"], ["b"], 2_000, outcomes(), "second");
      expect([first.context, (first.reply as string[])[0], second.context, (second.reply as string[])[0]]).toEqual(["first", "a", "second", "b"]);
      expect(await server.commandCalls("eval")).toBe(evalsBefore + 1);
      expect(await server.commandCalls("evalsha")).toBe(evalshasBefore + 2);
    });

    it("fails a server error through the outcomes and stays usable", async () => {
      const connection = connect();
      const refusing = new RedisScript("resp:refuse", "return redis.error_reply('ERR refused here')", 0);
      const error = await connection.runScript(refusing, [], [], 2_000, outcomes(), "refusing").catch((e: unknown) => e);
      expect((error as Error).message).toBe("failed refusing: ERR refused here");
      const echo = new RedisScript("resp:seven", "return 7", 0);
      expect((await connection.runScript(echo, [], [], 2_000, outcomes(), "after")).reply).toBe(7);
    });

    it("times a call out when no answer comes, and hands the answer that comes later to `late`", async () => {
      await using proxy = await startTcpProxy(server.port);
      const connection = connect(`redis://127.0.0.1:${proxy.port}`);
      const script = new RedisScript("resp:incr", "return redis.call('INCR', KEYS[1])", 1);
      await connection.runScript(script, ["resp:late"], [], 2_000, outcomes(), "warm");
      proxy.blackhole();
      let lateReply: (reply: unknown) => void = () => undefined;
      const late = new Promise((resolve) => {
        lateReply = resolve;
      });
      const call = connection.runScript(
        script,
        ["resp:late"],
        [],
        150,
        outcomes((reply, context) => lateReply([reply, context])),
        "slow",
      );
      expect(((await call.catch((e: unknown) => e)) as Error).message).toBe("no answer to slow within 150 ms");
      proxy.restore();
      expect(await late).toEqual([2, "slow"]);
      expect(await server.command("GET", "resp:late")).toBe("2");
    });

    it("never sends a call that timed out while the connection was not up yet", async () => {
      await using proxy = await startTcpProxy(server.port);
      proxy.blackhole();
      // Database 1: the connection waits for its SELECT to be answered before it sends anything.
      const connection = connect(`redis://127.0.0.1:${proxy.port}/1`, 30_000);
      const script = new RedisScript("resp:mark", "return redis.call('INCR', KEYS[1])", 1);
      const call = connection.runScript(script, ["resp:unsent"], [], 150, outcomes(), "unsent");
      expect(((await call.catch((e: unknown) => e)) as Error).message).toBe("no answer to unsent within 150 ms");
      const ready = once(connection, "ready");
      proxy.restore();
      await ready;
      expect((await connection.runScript(script, ["resp:sent"], [], 2_000, outcomes(), "sent")).reply).toBe(1);
      const inDb1 = new Redis({ port: server.port, db: 1 });
      expect(await inDb1.exists("resp:unsent")).toBe(0);
      inDb1.disconnect();
    });
  });
});
