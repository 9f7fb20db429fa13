import { connect } from "node:net";
import { TestServerError } from "../errors/test-server-error.js";

/** Options of {@link postgresQuery}. */
export interface PostgresQueryOptions {
  readonly port: number;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** @default "postgres" */
  readonly user?: string;
  /** @default "postgres" */
  readonly database?: string;
  /** @default 5000 */
  readonly timeoutMs?: number;
}

/** Rows as text, one array of column values (null for SQL NULL) per row. */
export type PostgresRows = (string | null)[][];

const PROTOCOL_3_0 = 196608;

function startupMessage(user: string, database: string): Buffer {
  const params = Buffer.from(`user\0${user}\0database\0${database}\0client_encoding\0UTF8\0\0`);
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + params.length, 0);
  header.writeInt32BE(PROTOCOL_3_0, 4);
  return Buffer.concat([header, params]);
}

function frontendMessage(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(4 + payload.length, 1);
  return Buffer.concat([header, payload]);
}

function errorText(payload: Buffer): string {
  const fields = new Map<string, string>();
  let position = 0;
  while (position < payload.length && payload[position] !== 0) {
    const end = payload.indexOf(0, position + 1);
    fields.set(String.fromCharCode(payload[position] as number), payload.toString("utf8", position + 1, end));
    position = end + 1;
  }
  return `${fields.get("M") ?? "error"} (SQLSTATE ${fields.get("C") ?? "?"})`;
}

function dataRow(payload: Buffer): (string | null)[] {
  const count = payload.readInt16BE(0);
  const row: (string | null)[] = [];
  let position = 2;
  for (let i = 0; i < count; i++) {
    const length = payload.readInt32BE(position);
    position += 4;
    if (length < 0) {
      row.push(null);
    } else {
      row.push(payload.toString("utf8", position, position + length));
      position += length;
    }
  }
  return row;
}

/**
 * Runs one statement with the PostgreSQL simple-query protocol over a fresh TCP connection
 * (trust authentication only) and resolves with its rows as text.
 */
export function postgresQuery(sql: string, options: PostgresQueryOptions): Promise<PostgresRows> {
  const host = options.host ?? "127.0.0.1";
  const timeoutMs = options.timeoutMs ?? 5_000;
  const where = `PostgreSQL ${host}:${options.port}`;
  return new Promise((resolve, reject) => {
    const rows: PostgresRows = [];
    let received = Buffer.alloc(0);
    let querySent = false;
    let settled = false;
    const socket = connect({ host, port: options.port });
    const fail = (error: Error): void => {
      settled = true;
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () => fail(new TestServerError(`${where} did not answer within ${timeoutMs} ms.`)));
    socket.once("error", (error) => fail(error));
    socket.once("close", () => {
      if (!settled) fail(new TestServerError(`${where} closed the connection.`));
    });
    socket.once("connect", () => socket.write(startupMessage(options.user ?? "postgres", options.database ?? "postgres")));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      while (!settled && received.length >= 5) {
        const length = received.readInt32BE(1);
        if (received.length < 1 + length) return;
        const type = String.fromCharCode(received[0] as number);
        const payload = received.subarray(5, 1 + length);
        received = received.subarray(1 + length);
        if (type === "E") {
          fail(new TestServerError(`${where}: ${errorText(payload)}`));
        } else if (type === "R" && payload.readInt32BE(0) !== 0) {
          fail(new TestServerError(`${where} asks for a password; test servers use trust authentication.`));
        } else if (type === "D") {
          rows.push(dataRow(payload));
        } else if (type === "Z" && !querySent) {
          querySent = true;
          socket.write(frontendMessage("Q", Buffer.from(`${sql}\0`)));
        } else if (type === "Z") {
          settled = true;
          socket.end(frontendMessage("X", Buffer.alloc(0)));
          resolve(rows);
        }
      }
    });
  });
}
