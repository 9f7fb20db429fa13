import { describe, expect, it } from "vitest";
import { encodeCommand, RedisReplyError, RespDecoder, type RespReply } from "./resp-codec.js";

/** Replies of every RESP2 type, as the server writes them one after another. */
const STREAM = [
  "+OK\r\n",
  "-NOSCRIPT No matching script\r\n",
  ":-42\r\n",
  "$-1\r\n",
  "$0\r\n\r\n",
  "$8\r\nline\r\nxy\r\n",
  "$5\r\nünï\r\n",
  "*-1\r\n",
  "*0\r\n",
  "*4\r\n:1\r\n$5\r\ntoken\r\n*2\r\n$-1\r\n+in\r\n-ERR nested\r\n",
].join("");

function decodeAll(chunks: readonly Buffer[]): RespReply[] {
  const replies: RespReply[] = [];
  const decoder = new RespDecoder((reply) => replies.push(reply));
  for (const chunk of chunks) decoder.push(chunk);
  return replies;
}

describe("RESP codec", () => {
  it("decodes every reply type: strings, errors, integers, nil, empty and binary-safe bulk strings, nested arrays", () => {
    const replies = decodeAll([Buffer.from(STREAM)]);
    expect(replies.map((reply) => (reply instanceof RedisReplyError ? `error: ${reply.message}` : reply))).toEqual([
      "OK",
      "error: NOSCRIPT No matching script",
      -42,
      null,
      "",
      "line\r\nxy",
      "ünï",
      null,
      [],
      [1, "token", [null, "in"], expect.any(RedisReplyError)],
    ]);
  });

  it("gives the same replies however the bytes are split into chunks, including inside a multi-byte character", () => {
    const bytes = Buffer.from(STREAM);
    const whole = decodeAll([bytes]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(whole);
    }
    expect(decodeAll([...bytes].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });

  it("encodes a command's lists in order as bulk strings, counting bytes not characters", () => {
    expect(encodeCommand("EVALSHA", ["abc", 1], ["{k}"], ["ü", 30_000])).toBe(
      "*6\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$3\r\n{k}\r\n$2\r\nü\r\n$5\r\n30000\r\n",
    );
  });

  it("refuses a byte that starts no RESP2 reply instead of guessing", () => {
    expect(() => decodeAll([Buffer.from("%1\r\n")])).toThrow(/unexpected RESP type byte/);
  });
});
