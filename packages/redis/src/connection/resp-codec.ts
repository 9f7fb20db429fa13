/** An error reply of the server (`-ERR …`, `-NOSCRIPT …`): the command ran and was refused, the connection is fine. */
export class RedisReplyError extends Error {
  override readonly name = "ReplyError";
}

/** One command as RESP2 bytes, its arguments taken from `lists` in order: an array of bulk strings (numbers as decimal text). */
export function encodeCommand(name: string, ...lists: readonly (readonly (string | number)[])[]): string {
  let count = 1;
  let body = "";
  for (const list of lists) {
    count += list.length;
    for (const part of list) {
      const text = typeof part === "string" ? part : String(part);
      body += `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
    }
  }
  return `*${count}\r\n$${name.length}\r\n${name}\r\n${body}`;
}

/** Returned by `RespDecoder.#value` when the buffer ends inside a reply. */
const INCOMPLETE = Symbol("incomplete");
type Reply = string | number | null | RedisReplyError | Reply[];
const CR = 13;

/**
 * Decodes RESP2 replies as they arrive: simple strings and bulk strings as strings (utf-8), integers as numbers, errors
 * as `RedisReplyError`, arrays as arrays, nil as null. Bytes of a reply split across chunks wait for the rest.
 */
export class RespDecoder {
  #buffer: Buffer | undefined;
  #offset = 0;
  readonly #onReply: (reply: Reply) => void;

  constructor(onReply: (reply: Reply) => void) {
    this.#onReply = onReply;
  }

  push(chunk: Buffer): void {
    this.#buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer.subarray(this.#offset), chunk]);
    this.#offset = 0;
    while (this.#offset < this.#buffer.length) {
      const start = this.#offset;
      const reply = this.#value();
      if (reply === INCOMPLETE) {
        this.#offset = start;
        return;
      }
      this.#onReply(reply);
    }
    this.#buffer = undefined;
    this.#offset = 0;
  }

  /** Forgets a partly received reply (the connection it came on is gone). */
  reset(): void {
    this.#buffer = undefined;
    this.#offset = 0;
  }

  #value(): Reply | typeof INCOMPLETE {
    const buffer = this.#buffer as Buffer;
    const type = buffer[this.#offset];
    const line = this.#line();
    if (line === undefined) return INCOMPLETE;
    switch (type) {
      case 0x2b /* + */:
        return line;
      case 0x2d /* - */:
        return new RedisReplyError(line);
      case 0x3a /* : */:
        return Number(line);
      case 0x24 /* $ */:
        return this.#bulk(Number(line));
      case 0x2a /* * */:
        return this.#array(Number(line));
      default:
        throw new Error(`unexpected RESP type byte ${type} in a reply`);
    }
  }

  /** The rest of the current line after its type byte, moving past its CRLF; undefined if the line is not complete. */
  #line(): string | undefined {
    const buffer = this.#buffer as Buffer;
    const end = buffer.indexOf(CR, this.#offset + 1);
    if (end < 0 || end + 1 >= buffer.length) return undefined;
    const text = buffer.toString("latin1", this.#offset + 1, end);
    this.#offset = end + 2;
    return text;
  }

  #bulk(length: number): string | null | typeof INCOMPLETE {
    if (length < 0) return null;
    const buffer = this.#buffer as Buffer;
    if (this.#offset + length + 2 > buffer.length) return INCOMPLETE;
    const text = buffer.toString("utf8", this.#offset, this.#offset + length);
    this.#offset += length + 2;
    return text;
  }

  #array(length: number): Reply[] | null | typeof INCOMPLETE {
    if (length < 0) return null;
    const items: Reply[] = [];
    for (let i = 0; i < length; i++) {
      if (this.#offset >= (this.#buffer as Buffer).length) return INCOMPLETE;
      const item = this.#value();
      if (item === INCOMPLETE) return INCOMPLETE;
      items.push(item);
    }
    return items;
  }
}

export type { Reply as RespReply };
