import { connect } from "node:net";
import { TestServerError } from "../errors/test-server-error.js";

/** A decoded RESP2 reply; error replies nested in arrays are `Error` values. */
export type RedisReply = string | number | null | Error | RedisReply[];

interface Parsed {
  readonly value: RedisReply;
  readonly next: number;
}

/** Parses one reply starting at `offset`; undefined when the buffer does not hold all of it yet. */
function parseReply(buffer: Buffer, offset: number): Parsed | undefined {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[offset] as number);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, next };
    case "-":
      return { value: new Error(line), next };
    case ":":
      return { value: Number(line), next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString("utf8", next, next + length), next: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: RedisReply[] = [];
      let position = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, position);
        if (item === undefined) return undefined;
        items.push(item.value);
        position = item.next;
      }
      return { value: items, next: position };
    }
    default:
      throw new TestServerError(`Unexpected RESP reply type ${JSON.stringify(type)}.`);
  }
}

function encodeCommand(args: readonly (string | number)[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) {
    const text = String(arg);
    parts.push(`$${Buffer.byteLength(text)}\r\n${text}\r\n`);
  }
  return Buffer.from(parts.join(""));
}

/**
 * Sends one command to a Redis server over a fresh raw TCP connection and resolves with the
 * reply; an error reply (`-ERR ...`, `-LOADING ...`) rejects.
 */
export function redisCommand(port: number, args: readonly (string | number)[], timeoutMs = 2_000, host = "127.0.0.1"): Promise<RedisReply> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new TestServerError(`Redis ${host}:${port} did not answer ${String(args[0])} within ${timeoutMs} ms.`)));
    socket.once("error", reject);
    socket.once("connect", () => socket.write(encodeCommand(args)));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      let parsed: Parsed | undefined;
      try {
        parsed = parseReply(received, 0);
      } catch (error) {
        socket.destroy(error as Error);
        return;
      }
      if (parsed === undefined) return;
      socket.destroy();
      if (parsed.value instanceof Error) {
        reject(new TestServerError(`Redis ${host}:${port} replied to ${String(args[0])}: ${parsed.value.message}`));
      } else {
        resolve(parsed.value);
      }
    });
    socket.once("close", () => reject(new TestServerError(`Redis ${host}:${port} closed the connection.`)));
  });
}
